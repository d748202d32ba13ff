/**
 * `verifyXadesBes`: whether a comprobante's enveloped XAdES-BES signature holds, strictly (the
 * fiscal README's warning: `xmlsec1 --verify` alone accepts signatures that cover nothing):
 * - exactly one ds:Signature, the last child of the root;
 * - a Reference to `#<root id>` with the enveloped-signature transform, so the comprobante
 *   itself is covered, and a Reference to the signature's own SignedProperties;
 * - the key taken only from X509Certificate; a KeyValue, when present, must be that same key;
 * - SigningCertificate's digest (and serial) match that certificate;
 * - the SignatureValue and every digest verify.
 * It never throws: any problem, expected or not, is a Spanish sentence in `problem`.
 */
import { timingSafeEqual, verify as cryptoVerify } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { digestBase64, digestHashOf, DS, signatureLabel, XADES, type XmlHash } from './algorithms.js';
import { canonicalize } from './c14n.js';
import { certificateFacts, type CertificateFacts } from './certificate.js';
import { allElements, childrenNamed, isDescendant, isNamed, nothingAfter, onlyChild, textOf } from './dom.js';
import { base64, idResolver, signatureParts, type ParsedReference, type SignatureParts } from './signature-parts.js';
import { parseXml, XmlProblem } from './xml-input.js';

export interface XmlVerification {
  valid: boolean;
  /** Why not, in Spanish, when `valid` is false. */
  problem?: string;
  /** The signer's name (the certificate's CN), once the certificate is known. */
  signerName?: string;
  /** The signer's certificate, DER. */
  certificate?: Buffer;
  /** xades:SigningTime as written. */
  signingTime?: string;
  /** The hash of the SignatureMethod. */
  hash?: XmlHash;
}

/**
 * @example
 *   const v = verifyXadesBes(await readFile('factura-firmada.xml'));
 *   if (!v.valid) console.log(v.problem);
 */
export function verifyXadesBes(xml: Buffer): XmlVerification {
  return verification(xml, verifyInto);
}

/** What a strict check (`check` throws XmlProblem at the first fault) says of `xml`, never throwing; shared with verify-ubl.ts. */
export function verification(xml: Buffer, check: (xml: Buffer, found: Omit<XmlVerification, 'valid' | 'problem'>) => void): XmlVerification {
  const found: Omit<XmlVerification, 'valid' | 'problem'> = {};
  try {
    check(xml, found);
    return { valid: true, ...found };
  } catch (err) {
    const problem = err instanceof XmlProblem ? err.message : 'La firma no se pudo verificar: el XML tiene una forma que Sello no sabe leer.';
    return { valid: false, problem, ...found };
  }
}

function verifyInto(xml: Buffer, found: Omit<XmlVerification, 'valid' | 'problem'>): void {
  const { root } = parseXml(xml);
  const signatures = allElements(root).filter((el) => isNamed(el, DS, 'Signature'));
  if (signatures.length > 1) throw new XmlProblem(`El XML tiene ${signatures.length} firmas; un comprobante lleva exactamente una.`);
  const signature = signatures[0];
  if (!signature) throw new XmlProblem('El XML no tiene firma (ds:Signature).');
  if (signature.parentNode !== root || !nothingAfter(signature)) {
    throw new XmlProblem('La firma no es el último elemento dentro del comprobante, como exige el SRI.');
  }
  const parts = signatureParts(signature, idResolver(root));
  found.hash = parts.hash;
  const signedProperties = requireCoverage(parts.references, root, signature);
  const signer = signingCertificate(parts, signedProperties);
  found.certificate = signer.der;
  found.signerName = signer.subjectName;
  const signedSignature = onlyChild(signedProperties, XADES, 'SignedSignatureProperties');
  found.signingTime = (signedSignature && textOf(onlyChild(signedSignature, XADES, 'SigningTime'))) || undefined;
  checkKeyValues(parts.keyInfo, signer);
  checkSignatureValue(parts, signer);
  for (const ref of parts.references) checkDigest(ref, root, signature);
}

/** The comprobante and the SignedProperties must both be covered; returns the SignedProperties. */
function requireCoverage(references: ParsedReference[], root: Element, signature: Element): Element {
  const rootId = root.getAttribute('id') ?? root.getAttribute('Id');
  if (!rootId) throw new XmlProblem(`El elemento raíz <${root.tagName}> no tiene id; la firma no puede cubrirlo.`);
  const toRoot = references.filter((r) => r.target === root);
  if (toRoot.length === 0) throw new XmlProblem(`La firma no cubre el comprobante: no tiene una referencia a #${rootId}.`);
  if (!toRoot.some((r) => r.enveloped)) throw new XmlProblem(`La referencia a #${rootId} no tiene la transformación enveloped-signature; no cubre el comprobante tal como está.`);
  const signedProperties = references
    .map((r) => r.target)
    .find((t) => isNamed(t, XADES, 'SignedProperties') && isOwnSignedProperties(t, signature));
  if (!signedProperties) throw new XmlProblem('La firma no cubre sus propiedades firmadas (xades:SignedProperties): no es XAdES-BES.');
  return signedProperties;
}

/** ds:Signature/ds:Object/xades:QualifyingProperties[@Target = #signature]/xades:SignedProperties. */
function isOwnSignedProperties(el: Element, signature: Element): boolean {
  const qualifying = el.parentNode as Element | null;
  const object = qualifying?.parentNode as Element | null;
  if (!qualifying || !object || !isNamed(qualifying, XADES, 'QualifyingProperties') || !isNamed(object, DS, 'Object') || object.parentNode !== signature) return false;
  const target = qualifying.getAttribute('Target');
  const id = signature.getAttribute('Id');
  return !target || !id || target === `#${id}`;
}

/** The KeyInfo certificate that SigningCertificate names by digest (and serial). */
function signingCertificate(parts: SignatureParts, signedProperties: Element): CertificateFacts {
  const x509Data = childrenNamed(parts.keyInfo, DS, 'X509Data');
  const certificates = x509Data.flatMap((d) => childrenNamed(d, DS, 'X509Certificate')).map((c) => {
    try {
      return certificateFacts(base64(textOf(c), 'X509Certificate'));
    } catch {
      throw new XmlProblem('Un certificado de KeyInfo (X509Certificate) no es un certificado X.509 válido.');
    }
  });
  if (certificates.length === 0) throw new XmlProblem('KeyInfo no trae el certificado del firmante (X509Certificate).');
  const signedSignature = onlyChild(signedProperties, XADES, 'SignedSignatureProperties');
  const signingCert = signedSignature && onlyChild(signedSignature, XADES, 'SigningCertificate');
  const cert = signingCert && childrenNamed(signingCert, XADES, 'Cert')[0];
  const certDigest = cert && onlyChild(cert, XADES, 'CertDigest');
  if (!cert || !certDigest) throw new XmlProblem('Las propiedades firmadas no identifican el certificado del firmante (SigningCertificate/CertDigest).');
  const named = certDigestOf(certDigest);
  const signer = certificates.find((c) => safeEqual(Buffer.from(digestBase64(named.hash, c.der), 'base64'), named.digest));
  if (!signer) throw new XmlProblem('El certificado de KeyInfo no es el que nombran las propiedades firmadas (SigningCertificate): la firma no identifica a su firmante.');
  const serial = textOf(onlyChild(onlyChild(cert, XADES, 'IssuerSerial') ?? cert, DS, 'X509SerialNumber'));
  if (serial && !(/^-?\d+$/.test(serial) && BigInt(serial) === BigInt(signer.serialNumber))) {
    throw new XmlProblem('El número de serie de SigningCertificate no es el del certificado del firmante.');
  }
  return signer;
}

function certDigestOf(certDigest: Element): { hash: XmlHash; digest: Buffer } {
  const hash = digestHashOf(onlyChild(certDigest, DS, 'DigestMethod')?.getAttribute('Algorithm') ?? null);
  if (!hash) throw new XmlProblem('SigningCertificate usa un algoritmo de resumen que Sello no admite (solo SHA-1 y SHA-256).');
  return { hash, digest: base64(textOf(onlyChild(certDigest, DS, 'DigestValue')), 'CertDigest') };
}

/** A KeyValue is only a hint: it must be the certificate's key, or the signature is refused. */
export function checkKeyValues(keyInfo: Element, signer: CertificateFacts): void {
  for (const keyValue of childrenNamed(keyInfo, DS, 'KeyValue')) {
    const rsa = onlyChild(keyValue, DS, 'RSAKeyValue');
    const same =
      !!rsa &&
      !!signer.rsa &&
      sameInteger(textOf(onlyChild(rsa, DS, 'Modulus')), signer.rsa.modulus) &&
      sameInteger(textOf(onlyChild(rsa, DS, 'Exponent')), signer.rsa.exponent);
    if (!same) throw new XmlProblem('La clave de KeyValue no es la del certificado del firmante; Sello solo acepta la clave del certificado.');
  }
}

export function checkSignatureValue(parts: SignatureParts, signer: CertificateFacts): void {
  if (!signer.rsa) throw new XmlProblem('El certificado del firmante no tiene clave RSA, y la firma dice ser RSA.');
  const signedInfo = Buffer.from(canonicalize(parts.signedInfo, parts.canonicalization), 'utf8');
  if (!cryptoVerify(parts.hash, signedInfo, signer.x509.publicKey, parts.signatureValue)) {
    throw new XmlProblem(`El valor de la firma (SignatureValue, ${signatureLabel(parts.hash)}) no corresponde al certificado de ${signer.subjectName}: la firma fue alterada o no la hizo ese certificado.`);
  }
}

function checkDigest(ref: ParsedReference, root: Element, signature: Element): void {
  const canonical = canonicalize(ref.target, { ...ref.canonicalization, ...(ref.enveloped ? { without: signature } : {}) });
  if (safeEqual(Buffer.from(digestBase64(ref.hash, canonical), 'base64'), ref.digest)) return;
  if (ref.target === root) throw new XmlProblem(`El contenido del comprobante cambió después de firmarlo: el resumen de ${ref.uri} no coincide.`);
  if (isNamed(ref.target, XADES, 'SignedProperties')) throw new XmlProblem('Las propiedades firmadas (SignedProperties) cambiaron después de firmar.');
  if (isNamed(ref.target, DS, 'KeyInfo')) throw new XmlProblem('El certificado o la clave de KeyInfo cambiaron después de firmar.');
  if (isDescendant(ref.target, signature)) throw new XmlProblem(`La parte ${ref.uri} de la firma cambió después de firmar.`);
  throw new XmlProblem(`El elemento ${ref.uri} cambió después de firmarlo: su resumen no coincide.`);
}

export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Two base64 CryptoBinary values as integers (leading zero bytes do not count). */
function sameInteger(a: string, b: string): boolean {
  const strip = (s: string): Buffer => {
    const bytes = Buffer.from(s.replace(/\s+/g, ''), 'base64');
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    return bytes.subarray(i);
  };
  return a !== '' && strip(a).equals(strip(b));
}
