/**
 * What every key source offers (STYLE "For Sello" §9): the certificate, its chain and
 * `sign(data)`. It has the shape of `CmsSigner` in core/pdf/cms/cms.ts, so the PDF code never
 * needs to know whether the key is in memory, in a .p12 or on a USB token (pyHanko's
 * "agnostic as to where the cryptographic operations actually happen").
 */
import { X509Certificate } from 'node:crypto';
import { SelloError } from '../../errors/index.js';

export interface KeySource {
  readonly kind: 'software' | 'p12' | 'token';
  /** The signer's certificate, DER. */
  readonly certificate: Buffer;
  /** The chain above it, DER, issuer first. */
  readonly chain: Buffer[];
  /**
   * Signs HASH(`data`), SHA-256 unless told otherwise: RSA PKCS#1 v1.5 or ECDSA (DER). Throws
   * `certificate_expired` when the certificate is not valid at the moment of signing. SHA-1 is
   * there only for the XAdES-BES the SRI accepts (rsa-sha1, core/xml); PDFs always use SHA-256.
   */
  sign(data: Buffer, hash?: SignatureHash): Promise<Buffer>;
}

/** The digests a key source can sign with. */
export type SignatureHash = 'sha256' | 'sha1';

/** The clock, a parameter so tests can sign "in the past" or "in the future". */
export type Clock = () => Date;

/**
 * Throws `certificate_expired` unless `now` is within the certificate's validity
 * (RFC 5280 §4.1.2.5): a signature made outside it is worthless to every verifier.
 *
 * @example assertCertificateCurrent(leafDer, new Date()) // ok, or throws
 */
export function assertCertificateCurrent(certificate: Buffer, now: Date): void {
  assertWithinValidity(certificateValidity(certificate), now);
}

export interface CertificateValidity {
  from: Date;
  to: Date;
}

/** The certificate's notBefore and notAfter. */
export function certificateValidity(certificate: Buffer): CertificateValidity {
  const cert = new X509Certificate(certificate);
  return { from: new Date(cert.validFrom), to: new Date(cert.validTo) };
}

/** `assertCertificateCurrent` for a validity read already. */
export function assertWithinValidity({ from, to }: CertificateValidity, now: Date): void {
  if (now < from) {
    throw new SelloError('certificate_expired', {
      detail: `El certificado todavía no es válido (válido desde ${from.toISOString()}). Revise la fecha y hora del equipo.`,
      meta: { valid_from: from.toISOString(), valid_to: to.toISOString() },
    });
  }
  if (now > to) {
    throw new SelloError('certificate_expired', {
      detail: `El certificado caducó el ${to.toISOString().slice(0, 10)}. Renueve el certificado con su entidad de certificación.`,
      meta: { valid_from: from.toISOString(), valid_to: to.toISOString() },
    });
  }
}

/**
 * Orders `certs` into the chain above `leaf`, issuer first, dropping the ones that are not on
 * the path (a .p12 or a token may carry unrelated certificates).
 */
export function orderChain(leaf: Buffer, certs: Buffer[]): Buffer[] {
  const pool = certs.map((der) => ({ der, x: new X509Certificate(der) }));
  const out: Buffer[] = [];
  let current = new X509Certificate(leaf);
  for (;;) {
    if (current.checkIssued(current)) break; // self-signed: the root, end of the path
    const issuer = pool.find((c) => !out.includes(c.der) && !c.der.equals(current.raw) && current.checkIssued(c.x) && safeVerify(current, c.x));
    if (!issuer) break;
    out.push(issuer.der);
    current = issuer.x;
  }
  return out;
}

function safeVerify(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}
