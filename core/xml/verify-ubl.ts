/**
 * `verifyUblDsig`: whether the enveloped XMLDSig of a UBL 2.1 document (what SUNAT and the OSEs
 * accept, as greenter signs it) holds, strictly. `xmlsec1 --verify` alone accepts a signature
 * that covers nothing (the fiscal README's warning), so:
 * - exactly one ds:Signature, the only element of an `ext:ExtensionContent` of the root's
 *   `ext:UBLExtensions/ext:UBLExtension`;
 * - exactly one Reference, with `URI=""` written and the enveloped-signature transform: the
 *   whole document is covered, nothing else is (no ids to confuse, no signature wrapping);
 * - the key taken only from X509Certificate; a KeyValue, when present, must be that same key;
 * - the SignatureValue and the digest verify.
 * It never throws: any problem, expected or not, is a Spanish sentence in `problem`. The SRI's
 * XAdES-BES is `verifyXadesBes`; the parts they share (SignedInfo, algorithms, C14N, the
 * checks of the key and of the SignatureValue) are the same code.
 */
import type { Element, Node } from '@xmldom/xmldom';
import { digestBase64, DS } from './algorithms.js';
import { canonicalize } from './c14n.js';
import { certificateFacts, type CertificateFacts } from './certificate.js';
import { allElements, childrenNamed, elementChildren, isNamed, textOf } from './dom.js';
import { base64, signatureParts, type SignatureParts } from './signature-parts.js';
import { checkKeyValues, checkSignatureValue, safeEqual, verification, type XmlVerification } from './verify.js';
import { parseXml, XmlProblem } from './xml-input.js';

/** The namespace of `ext:UBLExtensions`, `ext:UBLExtension` and `ext:ExtensionContent`. */
export const UBL_EXT = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';

const PROCESSING_INSTRUCTION = 7;

/**
 * @example
 *   const v = verifyUblDsig(await readFile('20600055519-01-F001-1.xml'));
 *   if (!v.valid) console.log(v.problem);
 */
export function verifyUblDsig(xml: Buffer): XmlVerification {
  return verification(xml, verifyInto);
}

function verifyInto(xml: Buffer, found: Omit<XmlVerification, 'valid' | 'problem'>): void {
  const { root } = parseXml(xml, undefined, { latin1: true });
  refuseInstructionsBeforeRoot(root);
  const signatures = allElements(root).filter((el) => isNamed(el, DS, 'Signature'));
  if (signatures.length > 1) throw new XmlProblem(`El XML tiene ${signatures.length} firmas (ds:Signature); un comprobante UBL lleva exactamente una.`);
  const signature = signatures[0];
  if (!signature) throw new XmlProblem('El XML no tiene firma (ds:Signature).');
  if (!isUblExtensionContent(signature.parentNode, root) || elementChildren(signature.parentNode as Element).length !== 1) {
    throw new XmlProblem('La firma no es el único elemento de un ext:ExtensionContent dentro de ext:UBLExtensions/ext:UBLExtension, donde la esperan SUNAT y los OSE.');
  }
  const parts = signatureParts(signature, (uri) => {
    if (uri === '') return root;
    throw new XmlProblem(`La firma tiene una referencia a «${uri}»; una firma UBL tiene una sola referencia, URI="", que cubre el documento entero.`);
  });
  found.hash = parts.hash;
  const [reference, ...others] = parts.references;
  const [referenceEl] = childrenNamed(parts.signedInfo, DS, 'Reference');
  if (!reference || others.length > 0 || !referenceEl?.hasAttribute('URI')) {
    throw new XmlProblem(`La firma debe tener exactamente una referencia con URI="" (el documento entero); tiene ${parts.references.length}${referenceEl?.hasAttribute('URI') === false ? ', sin URI' : ''}.`);
  }
  if (!reference.enveloped) throw new XmlProblem('La referencia URI="" no tiene la transformación enveloped-signature; no cubre el documento tal como está.');
  const signer = signerOf(parts);
  found.certificate = signer.der;
  found.signerName = signer.subjectName;
  checkKeyValues(parts.keyInfo, signer);
  checkSignatureValue(parts, signer);
  const canonical = canonicalize(root, { ...reference.canonicalization, without: signature });
  if (!safeEqual(Buffer.from(digestBase64(reference.hash, canonical), 'base64'), reference.digest)) {
    throw new XmlProblem('El contenido del comprobante cambió después de firmarlo: el resumen (DigestValue) del documento no coincide.');
  }
}

/** `el` is an ext:ExtensionContent of ext:UBLExtensions/ext:UBLExtension, child of the root. */
export function isUblExtensionContent(el: Node | null, root: Element): boolean {
  const extension = el?.parentNode;
  const extensions = extension?.parentNode;
  return (
    !!el &&
    isNamed(el as Element, UBL_EXT, 'ExtensionContent') &&
    !!extension &&
    isNamed(extension as Element, UBL_EXT, 'UBLExtension') &&
    !!extensions &&
    isNamed(extensions as Element, UBL_EXT, 'UBLExtensions') &&
    extensions.parentNode === root
  );
}

/**
 * URI="" is the whole document, whose canonical form would include processing instructions
 * before the root; the signer and the verifier digest the root, so such documents are refused
 * rather than digested differently from libxml2 or Java.
 */
export function refuseInstructionsBeforeRoot(root: Element): void {
  for (let n = root.previousSibling; n; n = n.previousSibling) {
    // xmldom keeps the XML declaration as an instruction named "xml"; it is not part of the document.
    if (n.nodeType === PROCESSING_INSTRUCTION && n.nodeName !== 'xml') {
      throw new XmlProblem('El XML tiene instrucciones de procesamiento (<?…?>) antes del elemento raíz; Sello no firma ni verifica esos documentos.');
    }
  }
}

/** The KeyInfo certificate whose key made the SignatureValue (the first one, if none did). */
function signerOf(parts: SignatureParts): CertificateFacts {
  const certificates = childrenNamed(parts.keyInfo, DS, 'X509Data')
    .flatMap((d) => childrenNamed(d, DS, 'X509Certificate'))
    .map((c) => {
      try {
        return certificateFacts(base64(textOf(c), 'X509Certificate'));
      } catch {
        throw new XmlProblem('Un certificado de KeyInfo (X509Certificate) no es un certificado X.509 válido.');
      }
    });
  const first = certificates[0];
  if (!first) throw new XmlProblem('KeyInfo no trae el certificado del firmante (X509Certificate); Sello solo toma la clave de un certificado.');
  for (const candidate of certificates) {
    try {
      checkSignatureValue(parts, candidate);
      return candidate;
    } catch {
      // the next one, if any: a KeyInfo may carry the chain
    }
  }
  return first;
}
