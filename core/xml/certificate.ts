/**
 * What a XAdES-BES signature says about its certificate (ds:KeyInfo, xades:SigningCertificate)
 * and the two checks the SRI makes of it: an RSA key, and a key usage that allows digital
 * signatures (error 39 otherwise). Read with node:crypto where it suffices and with forge's
 * ASN.1 reader for the issuer, the serial number and the key usage bits.
 */
import { X509Certificate } from 'node:crypto';
import { asn1, type Asn1 } from '../asn1/forge-asn1.js';
import { SelloError } from '../errors/index.js';
import { children, nameAttributes, x500NameText } from './x500-name.js';


export interface CertificateFacts {
  der: Buffer;
  x509: X509Certificate;
  /** ds:X509IssuerName: RFC 4514, readable by Java's X500Principal. */
  issuerName: string;
  /** ds:X509SerialNumber: the serial as a decimal integer. */
  serialNumber: string;
  /** The subject's CN, or the whole subject when it has none. */
  subjectName: string;
  /** ds:RSAKeyValue (base64 CryptoBinary), when the key is RSA. */
  rsa: { modulus: string; exponent: string } | undefined;
  /** Whether keyUsage has digitalSignature; undefined when the certificate has no keyUsage (no restriction, RFC 5280 §4.2.1.3). */
  digitalSignature: boolean | undefined;
}

const KEY_USAGE = '2.5.29.15';
const COMMON_NAME = '2.5.4.3';

/**
 * Certificates read lately, by their DER: an issuer signs every comprobante with the same one,
 * and reading it (node:crypto's X509Certificate, forge's ASN.1) cost more than a millisecond per
 * signature, twice (signing, then checking what was signed).
 */
const recent = new Map<string, CertificateFacts>();
const RECENT_MAX = 32;

/** Reads a DER certificate; throws on bytes that are not one. */
export function certificateFacts(der: Buffer): CertificateFacts {
  const key = der.toString('base64');
  const known = recent.get(key);
  if (known) return { ...known, der };
  const facts = readCertificateFacts(der);
  recent.set(key, facts);
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value!);
  return facts;
}

function readCertificateFacts(der: Buffer): CertificateFacts {
  const x509 = new X509Certificate(der);
  const tbs = children(asn1.fromDer(der.toString('binary')))[0];
  const parts = children(tbs);
  // [0] EXPLICIT version is optional (v1 certificates have none): RFC 5280 §4.1.
  const offset = parts[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  const serial = parts[offset];
  const issuer = parts[offset + 2];
  const subject = parts[offset + 4];
  if (!serial || !issuer || !subject) throw new Error('certificado X.509 incompleto');
  const subjectRdns = nameAttributes(subject);
  const cn = subjectRdns.flat().find((a) => a.oid === COMMON_NAME)?.text;
  return {
    der,
    x509,
    issuerName: x500NameText(nameAttributes(issuer)),
    serialNumber: signedInteger(Buffer.from(serial.value as string, 'binary')).toString(),
    subjectName: cn ?? x500NameText(subjectRdns),
    rsa: rsaKeyValue(x509),
    digitalSignature: keyUsageDigitalSignature(parts),
  };
}

/**
 * Throws the SelloError the SRI's refusal would mean, before anything is signed: the key must
 * be RSA (`certificate_key_type`) and its usage must allow digital signatures
 * (`certificate_key_usage`).
 */
export function assertXmlSigningCertificate(facts: CertificateFacts): asserts facts is CertificateFacts & { rsa: { modulus: string; exponent: string } } {
  if (!facts.rsa) {
    const type = facts.x509.publicKey.asymmetricKeyType?.toUpperCase() ?? 'desconocida';
    throw new SelloError('certificate_key_type', {
      detail: `La clave del certificado de ${facts.subjectName} es ${type}; las firmas XAdES que acepta el SRI solo admiten claves RSA. Use un certificado con clave RSA.`,
      detailEn: `The key of ${facts.subjectName}'s certificate is ${type}; the XAdES signatures the SRI accepts only allow RSA keys. Use a certificate with an RSA key.`,
      meta: { key_type: facts.x509.publicKey.asymmetricKeyType ?? null },
    });
  }
  if (facts.digitalSignature === false) {
    throw new SelloError('certificate_key_usage', {
      detail: `El certificado de ${facts.subjectName} no tiene el uso de clave «firma digital» (digitalSignature); el SRI rechaza esas firmas (error 39). Use el certificado de firma que entregó su entidad de certificación.`,
      detailEn: `${facts.subjectName}'s certificate lacks the digitalSignature key usage; the SRI refuses such signatures (error 39). Use the signing certificate your CA issued.`,
    });
  }
}

/** DER INTEGER content → the integer, two's complement (as Java's BigInteger reads it). */
function signedInteger(bytes: Buffer): bigint {
  if (bytes.length === 0) return 0n;
  const unsigned = BigInt(`0x${bytes.toString('hex')}`);
  return (bytes[0] ?? 0) & 0x80 ? unsigned - (1n << BigInt(bytes.length * 8)) : unsigned;
}

function rsaKeyValue(x509: X509Certificate): CertificateFacts['rsa'] {
  if (x509.publicKey.asymmetricKeyType !== 'rsa') return undefined;
  const jwk = x509.publicKey.export({ format: 'jwk' });
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') return undefined;
  // JWK's base64url has no leading zero bytes, as CryptoBinary wants (XMLDSig §4.0.1).
  return { modulus: Buffer.from(jwk.n, 'base64url').toString('base64'), exponent: Buffer.from(jwk.e, 'base64url').toString('base64') };
}

/** keyUsage ::= BIT STRING; digitalSignature is bit 0, the high bit of the first byte. */
function keyUsageDigitalSignature(tbsParts: Asn1[]): boolean | undefined {
  const tagged = tbsParts.find((p) => p.tagClass === asn1.Class.CONTEXT_SPECIFIC && p.type === 3);
  for (const ext of children(children(tagged)[0])) {
    const items = children(ext);
    if (!items[0] || asn1.derToOid(items[0].value as string) !== KEY_USAGE) continue;
    const octets = items[items.length - 1]?.value;
    if (typeof octets !== 'string') return false;
    const bits = Buffer.from(octets, 'binary'); // 03 len unused-bits first-byte…
    if (bits[0] !== 0x03 || (bits[1] ?? 0) < 2) return false;
    return ((bits[3] ?? 0) & 0x80) !== 0;
  }
  return undefined;
}
