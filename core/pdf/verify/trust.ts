/**
 * Whether a signer is who the certificate says (RFC 5280 §6 path validation, reduced to what
 * Sello can judge offline): a chain from the signer's certificate, through the certificates the
 * CMS carries (RFC 5652 §5.1 `certificates`), to one of the trust anchors — the data folder's
 * test CA or the roots the office configured. Each link is checked by name and by signature
 * (node:crypto `checkIssued` + `verify`), every issuer must be a CA, and every certificate
 * valid at the time the chain is judged.
 *
 * Left out on purpose: revocation (CRL/OCSP, RFC 5280 §6.3), name and policy constraints, and
 * the trust of a timestamp authority beyond the same anchors.
 */
import type { X509Certificate } from 'node:crypto';
import { commonName } from './cms-check.js';
import { parseCertificate } from './x509-cache.js';

/** A certificate a chain may end at. Plain data, so that it can cross to a worker thread. */
export interface TrustAnchor {
  /** `test_ca`: the data folder's test CA; `configured`: the roots of SELLO_TRUST_ROOTS or `--trust`. */
  source: 'test_ca' | 'configured';
  /** DER. */
  certificate: Uint8Array;
}

export interface TrustReport {
  /** Which kind of anchor the chain ends at; null when it ends at none. */
  anchor: TrustAnchor['source'] | null;
  /** CN of that anchor, for people. */
  anchorName: string | null;
  /** Why the signer is "no de confianza", in Spanish; absent when trusted. */
  problem?: string;
  /** The time the certificates were judged valid at. */
  checkedAt: Date;
  /** `timestamp`: a timestamp token whose authority is itself trusted; `now` otherwise. */
  timeSource: 'timestamp' | 'now';
}

const MAX_CHAIN = 10;

interface Anchor {
  source: TrustAnchor['source'];
  cert: X509Certificate;
}

/**
 * Judges the chain of `signer` at `at`.
 *
 * @example
 *   judgeChain(cms.signerCertificate, cms.certificates, anchors, new Date())
 *   // { anchor: 'test_ca', anchorName: 'Sello Test CA' } or { anchor: null, problem: 'certificado autofirmado…' }
 */
export function judgeChain(signer: Uint8Array, pool: readonly Uint8Array[], anchors: readonly TrustAnchor[], at: Date): Omit<TrustReport, 'checkedAt' | 'timeSource'> {
  const untrusted = (problem: string): Omit<TrustReport, 'checkedAt' | 'timeSource'> => ({ anchor: null, anchorName: null, problem });
  const leaf = parse(signer);
  if (!leaf) return untrusted('el certificado del firmante no se puede leer');
  const roots = anchors.flatMap((a): Anchor[] => {
    const cert = parse(a.certificate);
    return cert ? [{ source: a.source, cert }] : [];
  });
  const others = pool.flatMap((c) => parse(c) ?? []);
  if (roots.length === 0) return untrusted('no hay raíces de confianza configuradas');
  const path: X509Certificate[] = [leaf];
  for (let cur = leaf; path.length <= MAX_CHAIN; ) {
    const same = roots.find((r) => r.cert.fingerprint256 === cur.fingerprint256);
    if (same) return finish(path, same, at);
    const root = roots.find((r) => issuedBy(cur, r.cert));
    if (root) return finish([...path, root.cert], root, at);
    if (issuedBy(cur, cur)) {
      return untrusted(path.length === 1 ? 'certificado autofirmado: no lo emitió ninguna autoridad de confianza' : `la cadena termina en «${name(cur)}», que no es una raíz de confianza`);
    }
    const issuer = others.find((c) => !path.some((p) => p.fingerprint256 === c.fingerprint256) && issuedBy(cur, c));
    if (!issuer) return untrusted(`emisor desconocido: «${issuerName(cur)}» no es una raíz de confianza ni viene en la firma`);
    path.push(issuer);
    cur = issuer;
  }
  return untrusted('la cadena de certificados es demasiado larga');
}

/** RFC 5280 §6.1.3: every link signed by the next, issuers are CAs, all valid at `at`. */
function finish(path: X509Certificate[], anchor: Anchor, at: Date): Omit<TrustReport, 'checkedAt' | 'timeSource'> {
  const anchorName = name(anchor.cert);
  for (const [i, cert] of path.entries()) {
    // §4.2.1.9: an issuer must be a CA (the anchor too, unless it is the signer's own certificate).
    if (i > 0 && !cert.ca) return { anchor: null, anchorName: null, problem: `«${name(cert)}» no es una autoridad de certificación` };
    const from = new Date(cert.validFrom);
    const to = new Date(cert.validTo);
    if (at < from) return { anchor: null, anchorName: null, problem: `el certificado «${name(cert)}» aún no era válido el ${day(at)} (válido desde el ${day(from)})` };
    if (at > to) return { anchor: null, anchorName: null, problem: `el certificado «${name(cert)}» venció el ${day(to)}` };
  }
  return { anchor: anchor.source, anchorName };
}

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

function parse(der: Uint8Array): X509Certificate | undefined {
  return parseCertificate(der);
}

function name(cert: X509Certificate): string {
  return commonName(cert) ?? cert.subject.replaceAll('\n', ', ');
}

function issuerName(cert: X509Certificate): string {
  const cn = cert.issuer.split('\n').find((l) => l.startsWith('CN='));
  return cn ? cn.slice(3) : cert.issuer.replaceAll('\n', ', ');
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}
