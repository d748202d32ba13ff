/**
 * Checking the signatures already in a PDF (PDF 32000-1:2008 §12.8.1, RFC 5652 CMS,
 * RFC 3161 for document timestamps), whoever made them. For each signature field it reports
 * pyHanko-style named facts (`intact`, `coversWholeFile`); trust in the certificate chain is
 * a separate question, left to `certificates/`.
 */
import { X509Certificate, constants, createHash, createVerify, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { DerError, childrenOf, contentOf, octetsOf, oidOf, readTlv, type Tlv } from '../cms/der-reader.js';
import { signatureFields } from '../syntax/form-fields.js';
import { withPdfDocument, type PdfDocument } from '../syntax/pdf-document.js';
import { PdfString, decodeTextString, type PdfDict } from '../syntax/pdf-objects.js';

export interface SignatureReport {
  /** The signature field's fully qualified name. */
  fieldName: string;
  /** Common name (CN) of the signer certificate's subject, when the CMS carries it. */
  signerName: string | null;
  /** The signature dictionary's /M, the time the signer claims (not a timestamp). */
  signingTime: Date | null;
  /** /SubFilter: ETSI.CAdES.detached, adbe.pkcs7.detached, ETSI.RFC3161… */
  subFilter: string | null;
  /**
   * The signed bytes are unchanged: the digest over /ByteRange equals the CMS message digest
   * (or the timestamp's imprint) AND the CMS signature verifies with the certificate's key.
   */
  intact: boolean;
  /** /ByteRange starts at 0 and reaches the end of the file: nothing was added after signing. */
  coversWholeFile: boolean;
  byteRange: number[];
  /** Why `intact` is false, in Spanish. */
  problem?: string;
}

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  messageDigest: '1.2.840.113549.1.9.4',
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
 * Reports every signature field that holds a signature.
 *
 * @example
 *   verifyPdfSignatures(signed).every((s) => s.intact) // all signatures unbroken
 *   verifyPdfSignatures(signed).at(-1)?.coversWholeFile // nothing appended after the last one
 */
export function verifyPdfSignatures(pdf: Buffer): SignatureReport[] {
  return withPdfDocument(pdf, (doc) =>
    signatureFields(doc)
      .filter((f) => f.value)
      .map((f) => reportFor(doc, pdf, f.name, f.value!)),
  );
}

function reportFor(doc: PdfDocument, pdf: Buffer, fieldName: string, sig: PdfDict): SignatureReport {
  const br = (doc.array(sig.get('ByteRange')) ?? []).map((v) => doc.number(v) ?? -1);
  const m = doc.resolve(sig.get('M'));
  const report: SignatureReport = {
    fieldName,
    signerName: null,
    signingTime: m instanceof PdfString ? parsePdfDate(decodeTextString(m)) : null,
    subFilter: sig.name('SubFilter') ?? null,
    intact: false,
    coversWholeFile: br.length === 4 && br[0] === 0 && br[2]! + br[3]! === pdf.length,
    byteRange: br,
  };
  const ranges = toRanges(br, pdf.length);
  const contents = doc.resolve(sig.get('Contents'));
  if (!ranges) return { ...report, problem: '/ByteRange inválido' };
  if (!(contents instanceof PdfString)) return { ...report, problem: 'falta /Contents' };
  try {
    const result = checkCms(contents.bytes, pdf, ranges);
    return { ...report, signerName: result.signerName, intact: result.problem === undefined, ...(result.problem ? { problem: result.problem } : {}) };
  } catch (err) {
    return { ...report, problem: `CMS ilegible: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function toRanges(br: number[], fileLength: number): Array<[number, number]> | undefined {
  if (br.length === 0 || br.length % 2 !== 0) return undefined;
  const out: Array<[number, number]> = [];
  for (let i = 0; i < br.length; i += 2) {
    const start = br[i]!;
    const len = br[i + 1]!;
    if (start < 0 || len < 0 || start + len > fileLength) return undefined;
    out.push([start, start + len]);
  }
  return out;
}

function digestRanges(alg: string, pdf: Buffer, ranges: Array<[number, number]>): Buffer {
  const h = createHash(alg);
  for (const [a, b] of ranges) h.update(pdf.subarray(a, b));
  return h.digest();
}

function child(buf: Buffer, tlv: Tlv | undefined, i: number): Tlv {
  const c = tlv ? childrenOf(buf, tlv)[i] : undefined;
  if (!c) throw new DerError('estructura CMS incompleta');
  return c;
}

/** RFC 5652 §5: ContentInfo → SignedData → the first SignerInfo. */
function checkCms(der: Buffer, pdf: Buffer, ranges: Array<[number, number]>): { signerName: string | null; problem?: string } {
  // /Contents is zero-padded after the DER: read just the first element.
  const ci = readTlv(der, 0);
  if (oidOf(der, child(der, ci, 0)) !== OID.signedData) throw new DerError('no es SignedData');
  const sd = child(der, child(der, ci, 1), 0);
  const parts = childrenOf(der, sd);
  const encap = parts[2];
  const certsTlv = parts.find((p) => p.tag === 0xa0);
  const signerInfos = parts[parts.length - 1];
  const si = child(der, signerInfos, 0);
  const siParts = childrenOf(der, si);
  const sid = siParts[1]!;
  const digestAlg = HASHES[oidOf(der, child(der, siParts[2], 0))];
  if (!digestAlg) return { signerName: null, problem: 'algoritmo de resumen desconocido' };
  let k = 3;
  const signedAttrs = siParts[k]?.tag === 0xa0 ? siParts[k++] : undefined;
  const sigAlgOid = oidOf(der, child(der, siParts[k++], 0));
  const signature = octetsOf(der, siParts[k]!);

  const certs = certsTlv ? childrenOf(der, certsTlv).filter((c) => c.tag === 0x30).map((c) => new X509Certificate(der.subarray(c.start, c.end))) : [];
  const serialHex = sid.tag === 0x30 ? contentOf(der, child(der, sid, 1)).toString('hex').replace(/^(00)+(?=.)/, '').toUpperCase() : undefined;
  const byserial = serialHex ? certs.filter((c) => c.serialNumber.replace(/^(00)+(?=.)/, '').toUpperCase() === serialHex) : [];
  const candidates = byserial.length ? byserial : certs;
  const first = candidates[0];
  const signerName = first ? commonName(first) : null;

  // What the document digest must match.
  const docDigest = digestRanges(digestAlg, pdf, ranges);
  const eContentType = oidOf(der, child(der, encap, 0));
  const eContentTlv = encap ? childrenOf(der, encap)[1] : undefined;
  const eContent = eContentTlv ? octetsOf(der, child(der, eContentTlv, 0)) : undefined;
  let signedData: Buffer;
  if (signedAttrs) {
    const md = attributeValue(der, signedAttrs, OID.messageDigest);
    if (!md) return { signerName, problem: 'falta el atributo message-digest' };
    const expected = eContent ? createHash(digestAlg).update(eContent).digest() : docDigest;
    if (!octetsOf(der, md).equals(expected)) return { signerName, problem: 'el resumen del documento no coincide (el PDF cambió después de firmar)' };
    if (eContent && !contentMatchesDocument(eContentType, eContent, pdf, ranges)) return { signerName, problem: 'el sello de tiempo no corresponde al documento' };
    // RFC 5652 §5.4: the signature covers the attributes re-tagged as SET OF (0x31).
    signedData = Buffer.from(der.subarray(signedAttrs.start, signedAttrs.end));
    signedData[0] = 0x31;
  } else {
    if (eContent) {
      if (!contentMatchesDocument(eContentType, eContent, pdf, ranges)) return { signerName, problem: 'el contenido firmado no corresponde al documento' };
      signedData = eContent;
    } else {
      const ok = candidates.some((c) => {
        const v = createVerify(digestAlg);
        for (const [a, b] of ranges) v.update(pdf.subarray(a, b));
        return v.verify(c.publicKey, signature);
      });
      return ok ? { signerName } : { signerName, problem: 'la firma no verifica con el certificado' };
    }
  }
  const ok = candidates.some((c) => verifyWith(c.publicKey, digestAlg, sigAlgOid, signedData, signature));
  return ok ? { signerName } : { signerName, problem: 'la firma no verifica con el certificado' };
}

/** ETSI.RFC3161 (TSTInfo imprint, RFC 3161 §2.4.2) or adbe.pkcs7.sha1 (the SHA-1 of the ranges). */
function contentMatchesDocument(type: string, content: Buffer, pdf: Buffer, ranges: Array<[number, number]>): boolean {
  if (type === OID.tstInfo) {
    const tst = readTlv(content, 0);
    const imprint = child(content, tst, 2);
    const alg = HASHES[oidOf(content, child(content, child(content, imprint, 0), 0))];
    if (!alg) return false;
    return octetsOf(content, child(content, imprint, 1)).equals(digestRanges(alg, pdf, ranges));
  }
  if (type === OID.data) return content.equals(digestRanges('sha1', pdf, ranges));
  return false;
}

function attributeValue(der: Buffer, attrs: Tlv, oid: string): Tlv | undefined {
  for (const a of childrenOf(der, attrs)) {
    if (oidOf(der, child(der, a, 0)) === oid) return child(der, child(der, a, 1), 0);
  }
  return undefined;
}

function verifyWith(key: KeyObject, digestAlg: string, sigAlgOid: string, data: Buffer, signature: Buffer): boolean {
  try {
    if (sigAlgOid === OID.rsaPss) {
      return cryptoVerify(digestAlg, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, signature);
    }
    return cryptoVerify(digestAlg, data, key, signature);
  } catch {
    return false;
  }
}

function commonName(cert: X509Certificate): string | null {
  const line = cert.subject.split('\n').find((l) => l.startsWith('CN='));
  return line ? line.slice(3) : null;
}

/** §7.9.4 dates: D:YYYYMMDDHHmmSSOHH'mm', every part after the year optional. */
export function parsePdfDate(text: string): Date | null {
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?/.exec(text.trim());
  if (!m) return null;
  const n = (s: string | undefined, d: number): number => (s ? Number(s) : d);
  let t = Date.UTC(n(m[1], 0), n(m[2], 1) - 1, n(m[3], 1), n(m[4], 0), n(m[5], 0), n(m[6], 0));
  const sign = m[7] === '-' ? -1 : m[7] === '+' ? 1 : 0;
  t -= sign * (n(m[8], 0) * 60 + n(m[9], 0)) * 60_000;
  return new Date(t);
}
