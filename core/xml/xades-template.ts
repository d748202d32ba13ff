/**
 * The text of the enveloped XAdES-BES signature the SRI accepts (fiscal README, "Signature
 * accepted by the SRI in practice"; the SRI's technical sheet; ec-sri-invoice-signer's
 * templates): one ds:Signature, written without white space between elements so that what is
 * digested is exactly what is written, with
 * - SignedInfo: inclusive C14N 20010315, RSA-SHA1 (or RSA-SHA256), three References:
 *   `#comprobante` (enveloped), the SignedProperties (with its XAdES Type) and the KeyInfo;
 * - KeyInfo: the certificate and its RSA key (the SRI's validator reads KeyValue);
 * - Object/QualifyingProperties/SignedProperties: SigningTime, SigningCertificate (CertDigest
 *   and IssuerSerial) and the DataObjectFormat `text/xml` of the comprobante.
 * Digests and the signature value are parameters: the signer builds the text, digests its
 * parts in place, then builds it again with the values.
 */
import { randomUUID } from 'node:crypto';
import { C14N, DIGEST_URI, DS, ENVELOPED, SIGNATURE_URI, SIGNED_PROPERTIES_TYPE, XADES, type XmlHash } from './algorithms.js';

export interface SignatureIds {
  signature: string;
  signedInfo: string;
  documentReference: string;
  signedPropertiesReference: string;
  keyInfoReference: string;
  signatureValue: string;
  keyInfo: string;
  object: string;
  signedProperties: string;
}

/** Fresh ids for one signature: unique in the document, as XMLDSig's ID type requires. */
export function signatureIds(tag: string = randomUUID()): SignatureIds {
  const id = (name: string): string => `${name}-${tag}`;
  return {
    signature: id('Signature'),
    signedInfo: id('SignedInfo'),
    documentReference: id('DocumentRef'),
    signedPropertiesReference: id('SignedPropertiesRef'),
    keyInfoReference: id('CertificateRef'),
    signatureValue: id('SignatureValue'),
    keyInfo: id('Certificate'),
    object: id('SignatureObject'),
    signedProperties: id('SignedProperties'),
  };
}

export interface SignatureText {
  ids: SignatureIds;
  /** The id of the signed root (`comprobante`). */
  rootId: string;
  hash: XmlHash;
  certificate: {
    der: Buffer;
    issuerName: string;
    serialNumber: string;
    rsa: { modulus: string; exponent: string };
    /** Base64 of HASH(certificate DER). */
    digest: string;
  };
  /** xsd:dateTime with the offset. */
  signingTime: string;
  digests: { document: string; signedProperties: string; keyInfo: string };
  signatureValue: string;
}

/** The ds:Signature element, as it is inserted before the root's end tag. */
export function signatureXml(t: SignatureText): string {
  const { ids } = t;
  const digestMethod = `<ds:DigestMethod Algorithm="${DIGEST_URI[t.hash]}"/>`;
  const reference = (id: string, uri: string, digest: string, extra: { type?: string; enveloped?: boolean } = {}): string =>
    `<ds:Reference Id="${attr(id)}"${extra.type ? ` Type="${extra.type}"` : ''} URI="#${attr(uri)}">` +
    (extra.enveloped ? `<ds:Transforms><ds:Transform Algorithm="${ENVELOPED}"/></ds:Transforms>` : '') +
    `${digestMethod}<ds:DigestValue>${digest}</ds:DigestValue></ds:Reference>`;

  const signedInfo =
    `<ds:SignedInfo Id="${attr(ids.signedInfo)}">` +
    `<ds:CanonicalizationMethod Algorithm="${C14N}"/>` +
    `<ds:SignatureMethod Algorithm="${SIGNATURE_URI[t.hash]}"/>` +
    reference(ids.documentReference, t.rootId, t.digests.document, { enveloped: true }) +
    reference(ids.signedPropertiesReference, ids.signedProperties, t.digests.signedProperties, { type: SIGNED_PROPERTIES_TYPE }) +
    reference(ids.keyInfoReference, ids.keyInfo, t.digests.keyInfo) +
    '</ds:SignedInfo>';

  const keyInfo =
    `<ds:KeyInfo Id="${attr(ids.keyInfo)}">` +
    `<ds:X509Data><ds:X509Certificate>${t.certificate.der.toString('base64')}</ds:X509Certificate></ds:X509Data>` +
    `<ds:KeyValue><ds:RSAKeyValue><ds:Modulus>${t.certificate.rsa.modulus}</ds:Modulus><ds:Exponent>${t.certificate.rsa.exponent}</ds:Exponent></ds:RSAKeyValue></ds:KeyValue>` +
    '</ds:KeyInfo>';

  const signedProperties =
    `<etsi:SignedProperties Id="${attr(ids.signedProperties)}">` +
    '<etsi:SignedSignatureProperties>' +
    `<etsi:SigningTime>${t.signingTime}</etsi:SigningTime>` +
    '<etsi:SigningCertificate><etsi:Cert>' +
    `<etsi:CertDigest>${digestMethod}<ds:DigestValue>${t.certificate.digest}</ds:DigestValue></etsi:CertDigest>` +
    `<etsi:IssuerSerial><ds:X509IssuerName>${text(t.certificate.issuerName)}</ds:X509IssuerName><ds:X509SerialNumber>${t.certificate.serialNumber}</ds:X509SerialNumber></etsi:IssuerSerial>` +
    '</etsi:Cert></etsi:SigningCertificate>' +
    '</etsi:SignedSignatureProperties>' +
    '<etsi:SignedDataObjectProperties>' +
    `<etsi:DataObjectFormat ObjectReference="#${attr(ids.documentReference)}"><etsi:Description>contenido comprobante</etsi:Description><etsi:MimeType>text/xml</etsi:MimeType></etsi:DataObjectFormat>` +
    '</etsi:SignedDataObjectProperties>' +
    '</etsi:SignedProperties>';

  return (
    `<ds:Signature xmlns:ds="${DS}" xmlns:etsi="${XADES}" Id="${attr(ids.signature)}">` +
    signedInfo +
    `<ds:SignatureValue Id="${attr(ids.signatureValue)}">${t.signatureValue}</ds:SignatureValue>` +
    keyInfo +
    `<ds:Object Id="${attr(ids.object)}"><etsi:QualifyingProperties Target="#${attr(ids.signature)}">${signedProperties}</etsi:QualifyingProperties></ds:Object>` +
    '</ds:Signature>'
  );
}

/**
 * xsd:dateTime in the machine's own offset, milliseconds included, as the SRI's examples:
 * `2024-04-18T14:34:32.878-05:00`.
 */
export function xmlDateTime(date: Date): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return text(value).replace(/"/g, '&quot;');
}
