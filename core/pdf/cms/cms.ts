/**
 * The CMS signature of a PAdES baseline signature (ETSI EN 319 142-1 §5.3/§6.3, CONTRACT §12).
 *
 * `buildPadesCms` turns the SHA-256 digest of the PDF's byte ranges into a detached
 * `SignedData` (RFC 5652 §5) ready to be hex-encoded into the signature dictionary's
 * `/Contents`:
 *
 * - SignedData v1, one digestAlgorithm (SHA-256), `encapContentInfo` id-data without content
 *   (detached: the PDF bytes are the content);
 * - `certificates` = signer certificate first, then its chain;
 * - one SignerInfo v1 identified by issuerAndSerialNumber, with the signed attributes
 *   content-type, message-digest and signingCertificateV2 (RFC 5035). No signing-time:
 *   PAdES puts the claimed time in the signature dictionary's `/M` (EN 319 142-1 §5.2.1 / §6.3);
 * - B-T: when a TSA URL is given, an RFC 3161 token over the signature value goes into the
 *   unsigned attribute id-aa-timeStampToken (RFC 3161 Appendix A).
 *
 * Where the key lives does not matter here (pyHanko's `Signer` idea): a `CmsSigner` offers the
 * certificate and a `sign(data)` that returns the signature of SHA-256(data).
 */
import { X509Certificate, createHash, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { SelloError } from '../../errors/index.js';
import {
  OID,
  algorithm,
  children,
  ctx,
  decodeExact,
  encode,
  int,
  isContext,
  octets,
  oid,
  rawSet,
  seq,
  setOf,
  type Asn1Node,
} from './cms-asn1.js';
import { requestTimestampToken } from './timestamp.js';

/** Anything that can produce a signature for a certificate: a software key, a .p12, a token. */
export interface CmsSigner {
  /** The signer's certificate, DER. */
  certificate: Buffer;
  /** The chain above it, DER, issuer first (it is embedded so verifiers can build the path). */
  chain?: Buffer[];
  /**
   * Signs SHA-256(data): RSA PKCS#1 v1.5 (`sha256WithRSAEncryption`) or ECDSA with the
   * signature DER-encoded (`Ecdsa-Sig-Value`, RFC 5758 §3.2). `data` is the DER of the signed
   * attributes; the signer hashes it itself.
   */
  sign(data: Buffer): Promise<Buffer>;
}

export interface BuildPadesCmsOptions {
  /** SHA-256 of the PDF's byte ranges (32 bytes). */
  digest: Buffer;
  signer: CmsSigner;
  /** RFC 3161 TSA; when set the result is PAdES B-T, else B-B. */
  timestampUrl?: string;
  /** Extra CA (PEM file) to trust for an HTTPS TSA. */
  caFile?: string;
}

/**
 * Builds the detached CMS `ContentInfo` (DER) for a PAdES signature.
 *
 * @example
 *   const digest = createHash('sha256').update(byteRange1).update(byteRange2).digest();
 *   const cms = await buildPadesCms({ digest, signer: p12Signer, timestampUrl: settings.tsaUrl });
 *   // cms.toString('hex') goes into /Contents, padded with zeros to the reserved size.
 */
export async function buildPadesCms(opts: BuildPadesCmsOptions): Promise<Buffer> {
  const { digest, signer } = opts;
  if (digest.length !== 32) throw new Error('buildPadesCms: el digest debe ser SHA-256 (32 bytes)');

  const cert = parseCertificate(signer.certificate);
  const chain = (signer.chain ?? [])
    .filter((der) => !der.equals(signer.certificate)) // each certificate once
    .map((der, i) => decodeExact(der, `cadena[${i}]`));
  const signedAttrs = buildSignedAttributes(digest, signer.certificate, cert);

  // RFC 5652 §5.4: the signature covers the DER of the attributes with the SET OF tag (0x31),
  // not the [0] IMPLICIT tag they carry inside SignerInfo.
  const toBeSigned = encode(signedAttrs);
  const signature = await signer.sign(toBeSigned);
  assertSignatureMatchesCertificate(toBeSigned, signature, signer.certificate, cert.keyType);

  const unsignedAttrs: Asn1Node[] = [];
  if (opts.timestampUrl) {
    // RFC 3161 Appendix A / EN 319 142-1 B-T: the token's imprint is the hash of the signature value.
    const token = await requestTimestampToken({
      url: opts.timestampUrl,
      data: signature,
      ...(opts.caFile ? { caFile: opts.caFile } : {}),
    });
    const tokenNode = decodeTokenForEmbedding(token);
    unsignedAttrs.push(seq([oid(OID.timeStampToken), setOf([tokenNode])]));
  }

  const signerInfo = seq([
    int(1), // version 1: sid is issuerAndSerialNumber (RFC 5652 §5.3)
    seq([cert.issuer, cert.serial]),
    algorithm(OID.sha256, false), // RFC 5754 §2: parameters absent for SHA-2
    ctx(0, children(signedAttrs, 'signedAttrs')), // [0] IMPLICIT SET OF Attribute
    cert.keyType === 'rsa' ? algorithm(OID.rsaEncryption, true) : algorithm(OID.ecdsaWithSha256, false),
    octets(signature),
    ...(unsignedAttrs.length ? [ctx(1, unsignedAttrs)] : []), // [1] IMPLICIT SET OF Attribute
  ]);

  const signedData = seq([
    int(1), // RFC 5652 §5.1: v1 (no attribute certificates, id-data, only v1 SignerInfos)
    setOf([algorithm(OID.sha256, false)]),
    seq([oid(OID.data)]), // detached: eContent absent
    // certificates [0] IMPLICIT CertificateSet: signer first, as many verifiers expect.
    ctx(0, [cert.node, ...chain]),
    setOf([signerInfo]),
  ]);

  const cms = encode(seq([oid(OID.signedData), ctx(0, [signedData])]));
  builtHere.set(cms, { copy: Buffer.from(cms), digest: Buffer.from(digest) });
  return cms;
}

/**
 * CMS structures `buildPadesCms` made in this thread (their signature value checked against the
 * certificate's key as they were made), with a copy to tell that the buffer was not changed
 * since and the digest they sign: the read-back of a signed output need not verify them again.
 */
const builtHere = new WeakMap<Buffer, { copy: Buffer; digest: Buffer }>();

/**
 * The document digest `cms` signs when `buildPadesCms` made it in this thread and it is unchanged
 * since; undefined for any other buffer (which must then be checked in full).
 */
export function digestSignedByBuiltCms(cms: Buffer): Buffer | undefined {
  const built = builtHere.get(cms);
  return built?.copy.equals(cms) ? built.digest : undefined;
}

/** Bytes reserved for the timestamp token: a TSA answers with its own certificate chain (certReq). */
const TIMESTAMP_RESERVE = 12_000;

/**
 * How many bytes to reserve in `/Contents` (before hex encoding) for the CMS of `signer`.
 * Generous on purpose: a placeholder too small means signing again from scratch.
 *
 * @example
 *   const bytes = estimateCmsSize(signer, { timestamp: !!settings.tsaUrl });
 *   // reserve 2 * bytes hex digits between < and >
 */
export function estimateCmsSize(signer: CmsSigner, opts: { timestamp: boolean }): number {
  const certs = [signer.certificate, ...(signer.chain ?? [])].reduce((n, c) => n + c.length, 0);
  let sigBytes = 512;
  try {
    const key = publicKeyOf(signer.certificate);
    const details = key.asymmetricKeyDetails;
    if (key.asymmetricKeyType === 'rsa' && details?.modulusLength) sigBytes = Math.ceil(details.modulusLength / 8) + 16;
    else if (key.asymmetricKeyType === 'ec') sigBytes = 160; // P-521: 2 × 66 + DER overhead
  } catch {
    // keep the generous default
  }
  // Attributes (~ 200 + issuer name), SignerInfo and SignedData framing: 2 KiB covers them
  // with room for long issuer names; then the signature and the optional token.
  return certs + 2048 + sigBytes + (opts.timestamp ? TIMESTAMP_RESERVE : 0);
}

/** What we need from the signer's certificate, taken as DER nodes so nothing is re-encoded. */
interface ParsedCertificate {
  node: Asn1Node;
  issuer: Asn1Node;
  serial: Asn1Node;
  keyType: 'rsa' | 'ec';
}

/**
 * Parsed signer certificates, by their DER bytes: a signature needed the certificate parsed
 * several times (size estimate, SignerInfo, the signature check), and a key source signs many
 * documents with the same one. Keyed by content, so a changed certificate is parsed afresh;
 * bounded, the oldest dropped first. Only successful parses are kept.
 */
const parsedCertificates = new Map<string, { publicKey: KeyObject; parsed?: ParsedCertificate }>();
const PARSED_CERTIFICATES_MAX = 32;

function cachedCertificate(der: Buffer): { publicKey: KeyObject; parsed?: ParsedCertificate } {
  const key = der.toString('base64');
  let entry = parsedCertificates.get(key);
  if (!entry) {
    entry = { publicKey: new X509Certificate(der).publicKey };
    if (parsedCertificates.size >= PARSED_CERTIFICATES_MAX) parsedCertificates.delete(parsedCertificates.keys().next().value!);
    parsedCertificates.set(key, entry);
  }
  return entry;
}

function publicKeyOf(der: Buffer): KeyObject {
  return cachedCertificate(der).publicKey;
}

function parseCertificate(der: Buffer): ParsedCertificate {
  const entry = cachedCertificate(der);
  entry.parsed ??= parseCertificateUncached(der, entry.publicKey);
  return entry.parsed;
}

function parseCertificateUncached(der: Buffer, publicKey: KeyObject): ParsedCertificate {
  const node = decodeExact(der, 'certificado del firmante');
  const tbs = children(children(node, 'Certificate')[0], 'TBSCertificate');
  // TBSCertificate (RFC 5280 §4.1): [0] version is optional, then serialNumber, signature, issuer.
  const offset = isContext(tbs[0], 0) ? 1 : 0;
  const serial = tbs[offset];
  const issuer = tbs[offset + 2];
  if (!serial || !issuer) throw new Error('certificado del firmante: TBSCertificate incompleto');
  const keyType = publicKey.asymmetricKeyType;
  if (keyType !== 'rsa' && keyType !== 'ec') {
    throw new Error(`certificado del firmante: tipo de clave no admitido (${String(keyType)})`);
  }
  return { node, issuer, serial, keyType };
}

/**
 * The signed attributes, as a DER-sorted SET OF (X.690 §11.6):
 * content-type = id-data (RFC 5652 §11.1), message-digest (§11.2) and
 * signingCertificateV2 (RFC 5035 §3), which binds the signer certificate to the signature
 * (EN 319 142-1 §5.2.2 requires it for PAdES baseline).
 */
function buildSignedAttributes(digest: Buffer, certDer: Buffer, cert: ParsedCertificate): Asn1Node {
  const certHash = createHash('sha256').update(certDer).digest();
  // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT id-sha256, certHash, issuerSerial }.
  // DER omits a DEFAULT value, so SHA-256 is implied by leaving hashAlgorithm out.
  const issuerSerial = seq([
    seq([ctx(4, [cert.issuer])]), // GeneralNames { directoryName [4] EXPLICIT Name }
    cert.serial,
  ]);
  const essCertIdV2 = seq([octets(certHash), issuerSerial]);
  const signingCertificateV2 = seq([seq([essCertIdV2])]); // SigningCertificateV2 { certs SEQUENCE OF ESSCertIDv2 }

  return setOf([
    seq([oid(OID.contentType), setOf([oid(OID.data)])]),
    seq([oid(OID.messageDigest), setOf([octets(digest)])]),
    seq([oid(OID.signingCertificateV2), setOf([signingCertificateV2])]),
  ]);
}

/**
 * Checks the signature against the certificate's public key before it goes into a PDF:
 * a token key that does not belong to the chosen certificate would otherwise produce a
 * document that every verifier rejects.
 */
function assertSignatureMatchesCertificate(data: Buffer, signature: Buffer, certDer: Buffer, keyType: 'rsa' | 'ec'): void {
  const publicKey = publicKeyOf(certDer);
  const ok = cryptoVerify('sha256', data, keyType === 'ec' ? { key: publicKey, dsaEncoding: 'der' } : publicKey, signature);
  if (!ok) {
    throw new SelloError('internal_error', {
      detail: 'La firma producida no corresponde a la clave pública del certificado elegido. Revise que el certificado y la clave sean del mismo par.',
    });
  }
}

function decodeTokenForEmbedding(token: Buffer): Asn1Node {
  try {
    return decodeExact(token, 'sello de tiempo');
  } catch (err) {
    throw new SelloError('timestamp_failed', {
      detail: 'La autoridad de sellado de tiempo devolvió un sello con codificación no DER; configure otra TSA.',
      cause: err,
    });
  }
}

/** Exposed for tests and for the verifier: the signed attributes' DER (tag 0x31) of a CMS. */
export function signedAttributesOf(cms: Buffer): Buffer {
  const ci = decodeExact(cms, 'CMS');
  const sd = children(children(children(ci, 'ContentInfo')[1], '[0]')[0], 'SignedData');
  const signerInfos = children(sd[sd.length - 1], 'signerInfos');
  const si = children(signerInfos[0], 'SignerInfo');
  const attrs = si.find((n) => isContext(n, 0));
  if (!attrs) throw new Error('CMS sin atributos firmados');
  // Re-tag [0] as SET (0x31) without re-sorting, so an unsorted input stays visible.
  return encode(rawSet(children(attrs, 'signedAttrs')));
}
