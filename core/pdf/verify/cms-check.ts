/**
 * Checking one CMS SignedData (RFC 5652 §5) as a PDF signature carries it in /Contents:
 * the digest the signer vouched for, and the signer's signature over it. What the digest must
 * equal is asked of the caller (`SignedContent`), so that verification hashes the /ByteRange while
 * the read-back of a fresh signature passes the digest it already computed (no second hash of
 * the file).
 *
 * Three shapes (PDF 32000-1:2008 §12.8.3.3, ETSI EN 319 142-1 §5.1):
 * - signed attributes with message-digest (adbe.pkcs7.detached, ETSI.CAdES.detached);
 * - an eContent that is the SHA-1 of the ranges (adbe.pkcs7.sha1) or a TSTInfo whose imprint is
 *   over the ranges (ETSI.RFC3161 document timestamps, RFC 3161 §2.4.2);
 * - neither: the signature is directly over the content (RFC 5652 §5.4, no attributes).
 */
import { constants, createHash, createVerify, verify as cryptoVerify, type KeyObject, type X509Certificate } from 'node:crypto';
import { DerError, childrenOf, contentOf, octetsOf, oidOf, readTlv, type Tlv } from '../cms/der-reader.js';
import { readTstInfo } from '../cms/timestamp.js';
import { parseCertificate } from './x509-cache.js';

/** What the signature claims to cover, as the caller holds it. */
export interface SignedContent {
  /** Its digest under `alg` (a node:crypto name). */
  digest(alg: string): Buffer;
  /** The bytes themselves, for the rare signature without signed attributes (RFC 5652 §5.4). */
  chunks?(): Buffer[];
}

export interface CmsCheck {
  /** CN of the signer certificate's subject. */
  signerName: string | null;
  /** DER of the certificate whose key verifies the signature (or the one the SignerInfo names). */
  signerCertificate: Buffer | undefined;
  /** Every certificate the SignedData carries, DER: the pool for building the chain. */
  certificates: Buffer[];
  /** Why the signature does not hold, in Spanish; absent when it holds. */
  problem?: string;
  /** A signature timestamp (id-aa-timeStampToken, RFC 3161 Appendix A) that holds over the signature value. */
  timestamp?: { genTime: Date; signerCertificate: Buffer; certificates: Buffer[] };
  /** genTime of the TSTInfo when the SignedData is itself a timestamp token (ETSI.RFC3161). */
  genTime?: Date;
}

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  messageDigest: '1.2.840.113549.1.9.4',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  rsaPss: '1.2.840.113549.1.1.10',
} as const;

const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '2.16.840.1.101.3.4.2.4': 'sha224',
};

/**
 * Checks the SignedData at the start of `der` (a /Contents value may be zero-padded after it).
 * Throws DerError for a CMS it cannot read.
 *
 * @example
 *   const check = checkSignedData(contents, { digest: (alg) => digestRanges(alg, pdf, ranges) });
 *   check.problem // undefined when the signature holds
 */
export function checkSignedData(der: Buffer, signed: SignedContent): CmsCheck {
  try {
    return check(der, signed);
  } catch (err) {
    // BER nested without end (indefinite lengths inside one another) exhausts the stack of the reader.
    if (err instanceof RangeError) throw new DerError('ASN.1 anidado sin fin');
    throw err;
  }
}

function check(der: Buffer, signed: SignedContent): CmsCheck {
  const ci = readTlv(der, 0);
  if (oidOf(der, child(der, ci, 0)) !== OID.signedData) throw new DerError('no es SignedData');
  const sd = child(der, child(der, ci, 1), 0);
  const parts = childrenOf(der, sd);
  const encap = parts[2];
  const certsTlv = parts.find((p) => p.tag === 0xa0);
  const si = child(der, parts[parts.length - 1], 0);
  const siParts = childrenOf(der, si);
  const sid = siParts[1];
  if (!sid) throw new DerError('SignerInfo incompleto');
  const digestAlg = HASHES[oidOf(der, child(der, siParts[2], 0))];
  let k = 3;
  const signedAttrs = siParts[k]?.tag === 0xa0 ? siParts[k++] : undefined;
  const sigAlgOid = oidOf(der, child(der, siParts[k++], 0));
  const sigTlv = siParts[k++];
  if (!sigTlv) throw new DerError('SignerInfo sin firma');
  const signature = octetsOf(der, sigTlv);
  const unsignedAttrs = siParts[k]?.tag === 0xa1 ? siParts[k] : undefined;

  const certificates = certsTlv ? childrenOf(der, certsTlv).filter((c) => c.tag === 0x30).map((c) => Buffer.from(der.subarray(c.start, c.end))) : [];
  const parsed = certificates.flatMap((c) => {
    const x509 = parseCertificate(c);
    return x509 ? [{ der: c, x509 }] : [];
  });
  // RFC 5652 §5.3: issuerAndSerialNumber names the certificate; subjectKeyIdentifier [0] is tried by key.
  const serialHex = sid.tag === 0x30 ? normalSerial(contentOf(der, child(der, sid, 1)).toString('hex')) : undefined;
  const named = serialHex ? parsed.filter((c) => normalSerial(c.x509.serialNumber) === serialHex) : [];
  const candidates = named.length ? named : parsed;
  const base: CmsCheck = { signerName: candidates[0] ? commonName(candidates[0].x509) : null, signerCertificate: candidates[0]?.der, certificates };
  const fail = (problem: string): CmsCheck => ({ ...base, problem });
  if (!digestAlg) return fail('algoritmo de resumen desconocido');

  const eContentType = oidOf(der, child(der, encap, 0));
  const eContentTlv = encap ? childrenOf(der, encap)[1] : undefined;
  const eContent = eContentTlv ? octetsOf(der, child(der, eContentTlv, 0)) : undefined;
  const genTime = eContentType === OID.tstInfo ? tstTime(der.subarray(ci.start, ci.end)) : undefined;
  let signedBytes: Buffer[];
  if (signedAttrs) {
    const md = attributeValue(der, signedAttrs, OID.messageDigest);
    if (!md) return fail('falta el atributo message-digest');
    const expected = eContent ? createHash(digestAlg).update(eContent).digest() : signed.digest(digestAlg);
    if (!octetsOf(der, md).equals(expected)) return fail('el resumen del documento no coincide (el PDF cambió después de firmar)');
    if (eContent && !contentMatches(eContentType, eContent, signed)) return fail('el sello de tiempo no corresponde al documento');
    // RFC 5652 §5.4: the signature covers the attributes re-tagged as SET OF (0x31).
    const attrs = Buffer.from(der.subarray(signedAttrs.start, signedAttrs.end));
    attrs[0] = 0x31;
    signedBytes = [attrs];
  } else if (eContent) {
    if (!contentMatches(eContentType, eContent, signed)) return fail('el contenido firmado no corresponde al documento');
    signedBytes = [eContent];
  } else {
    // No attributes, detached (RFC 5652 §5.4): the signature is over the document bytes themselves.
    const chunks = signed.chunks?.();
    if (!chunks) return fail('firma sin atributos firmados: no se puede verificar sin el documento');
    signedBytes = chunks;
  }
  const signer = candidates.find((c) => verifyWith(() => c.x509.publicKey, digestAlg, sigAlgOid, signedBytes, signature));
  if (!signer) return fail('la firma no verifica con el certificado');
  const result: CmsCheck = { signerName: commonName(signer.x509), signerCertificate: signer.der, certificates, ...(genTime ? { genTime } : {}) };
  const token = unsignedAttrs ? attributeTlv(der, unsignedAttrs, OID.timeStampToken) : undefined;
  if (token) {
    const timestamp = signatureTimestamp(der.subarray(token.start, token.end), signature);
    if (timestamp) result.timestamp = timestamp;
  }
  return result;
}

/** RFC 3161 §2.4.2 genTime, or undefined when the TSTInfo cannot be read (the imprint check then fails on its own). */
function tstTime(token: Buffer): Date | undefined {
  try {
    return readTstInfo(token).genTime;
  } catch {
    return undefined;
  }
}

/** RFC 3161 Appendix A: a token whose imprint is the hash of the signature value. */
function signatureTimestamp(token: Buffer, signatureValue: Buffer): CmsCheck['timestamp'] {
  try {
    const check = checkSignedData(token, { digest: (alg) => createHash(alg).update(signatureValue).digest() });
    if (check.problem || !check.signerCertificate || !check.genTime) return undefined;
    return { genTime: check.genTime, signerCertificate: check.signerCertificate, certificates: check.certificates };
  } catch {
    return undefined;
  }
}

/** ETSI.RFC3161 (TSTInfo imprint, RFC 3161 §2.4.2) or adbe.pkcs7.sha1 (the SHA-1 of the ranges). */
function contentMatches(type: string, content: Buffer, signed: SignedContent): boolean {
  if (type === OID.tstInfo) {
    const tst = readTlv(content, 0);
    const imprint = child(content, tst, 2);
    const alg = HASHES[oidOf(content, child(content, child(content, imprint, 0), 0))];
    if (!alg) return false;
    return octetsOf(content, child(content, imprint, 1)).equals(signed.digest(alg));
  }
  if (type === OID.data) return content.equals(signed.digest('sha1'));
  return false;
}

function child(buf: Buffer, tlv: Tlv | undefined, i: number): Tlv {
  const c = tlv ? childrenOf(buf, tlv)[i] : undefined;
  if (!c) throw new DerError('estructura CMS incompleta');
  return c;
}

function attributeTlv(der: Buffer, attrs: Tlv, oid: string): Tlv | undefined {
  for (const a of childrenOf(der, attrs)) {
    if (oidOf(der, child(der, a, 0)) === oid) return child(der, child(der, a, 1), 0);
  }
  return undefined;
}

function attributeValue(der: Buffer, attrs: Tlv, oid: string): Tlv | undefined {
  return attributeTlv(der, attrs, oid);
}

/**
 * RSA PKCS#1 v1.5, RSA-PSS or ECDSA. One chunk (the signed attributes: every read-back) goes
 * through the one-shot call; several (a document without attributes) are streamed, never joined.
 */
function verifyWith(keyOf: () => KeyObject, digestAlg: string, sigAlgOid: string, data: Buffer[], signature: Buffer): boolean {
  const pss = sigAlgOid === OID.rsaPss;
  try {
    // X509Certificate parses the key only when asked: a certificate whose SubjectPublicKeyInfo is
    // damaged (a changed byte in /Contents) throws here, and signs nothing.
    const key = keyOf();
    if (data.length === 1) return cryptoVerify(digestAlg, data[0]!, pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO } : key, signature);
    const v = createVerify(digestAlg);
    for (const d of data) v.update(d);
    if (pss) return v.verify({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    return v.verify(key, signature);
  } catch {
    return false;
  }
}

function normalSerial(hex: string): string {
  return hex.replace(/^(00)+(?=.)/, '').toUpperCase();
}

/** The CN of a certificate's subject, or null. */
export function commonName(cert: X509Certificate): string | null {
  const line = cert.subject.split('\n').find((l) => l.startsWith('CN='));
  return line ? line.slice(3) : null;
}
