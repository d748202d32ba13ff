/**
 * `signUblDsig`: the enveloped XMLDSig of a UBL 2.1 document (factura, boleta, notes, summaries,
 * guides) as SUNAT and the OSEs accept it, and as greenter writes it: one Reference `URI=""`
 * with the enveloped-signature transform, inclusive C14N 1.0, RSA-SHA1 and SHA-1 by default
 * (SHA-256 on request), the certificate in KeyInfo/X509Data, the whole ds:Signature inside the
 * document's empty `ext:UBLExtensions/ext:UBLExtension/ext:ExtensionContent`.
 *
 * The same way as `signXadesBes` (sign.ts), and with the same parts: the input bytes are never
 * re-serialised (the signature is inserted as text into the empty ExtensionContent), the
 * SignedInfo is canonicalized in its real context from a parse of the draft, the signer (a key
 * in memory or a token) signs it, and the result is checked with `verifyUblDsig` before it is
 * handed back.
 */
import type { Element } from '@xmldom/xmldom';
import { SelloError } from '../errors/index.js';
import { C14N, DIGEST_URI, digestBase64, DS, ENVELOPED, SIGNATURE_URI, type XmlHash } from './algorithms.js';
import { canonicalize } from './c14n.js';
import { assertXmlSigningCertificate, certificateFacts } from './certificate.js';
import { allElements, childrenNamed, elementChildren, isNamed, onlyChild, textOf } from './dom.js';
import type { XmlSigner } from './signer.js';
import { isUblExtensionContent, refuseInstructionsBeforeRoot, verifyUblDsig } from './verify-ubl.js';
import { parseXml, XmlProblem, type Room } from './xml-input.js';

export interface SignUblOptions {
  /** SHA-1 (default: what SUNAT's examples and greenter use) or SHA-256. */
  hash?: XmlHash;
  /**
   * The ds:Signature's Id. By default the one the document names in
   * `cac:Signature/cac:DigitalSignatureAttachment/cac:ExternalReference/cbc:URI` ("#SignatureSP"),
   * or `UBL_SIGNATURE_ID` when it names none.
   */
  signatureId?: string;
}

/** The Id written when neither the caller nor the document's cac:Signature gives one. */
export const UBL_SIGNATURE_ID = 'SignSUNAT';

const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

/** What the signature adds: about 3 KB with a large certificate, 12 tags, 1 namespace. */
const SIGNATURE_ROOM: Room = { bytes: 64 * 1024, tags: 40, namespaces: 1 };

/**
 * Signs `xml` (a UBL 2.1 document in UTF-8 or ISO-8859-1 with one empty ExtensionContent) and
 * returns the exact bytes to send. Throws SelloError: `xml_invalid` (no empty ExtensionContent,
 * already signed, malformed…), `certificate_key_type`, `certificate_key_usage`, and whatever the
 * signer throws (`certificate_expired`, `pin_*`…).
 *
 * @example
 *   const signed = await signUblDsig(await readFile('20600055519-01-F001-1.xml'), xmlSignerFrom(source));
 */
export async function signUblDsig(xml: Buffer, signer: XmlSigner, options: SignUblOptions = {}): Promise<Buffer> {
  try {
    return await sign(xml, signer, options);
  } catch (err) {
    if (err instanceof XmlProblem) throw new SelloError('xml_invalid', { detail: err.message });
    throw err;
  }
}

async function sign(xml: Buffer, signer: XmlSigner, options: SignUblOptions): Promise<Buffer> {
  const hash = options.hash ?? 'sha1';
  const facts = certificateFacts(signer.certificate);
  assertXmlSigningCertificate(facts);
  const { root, text, byteOffset } = parseXml(xml, SIGNATURE_ROOM, { latin1: true });
  refuseInstructionsBeforeRoot(root);
  if (allElements(root).some((el) => isNamed(el, DS, 'Signature'))) {
    throw new XmlProblem('El XML ya está firmado (tiene un ds:Signature); SUNAT admite una sola firma por comprobante. Firme el XML original, con el ext:ExtensionContent vacío.');
  }
  const place = emptyExtensionContent(root);
  const id = options.signatureId ?? documentSignatureId(root) ?? UBL_SIGNATURE_ID;
  if (!/^[A-Za-z_][A-Za-z0-9._-]{0,63}$/.test(id)) {
    throw new XmlProblem(`El Id de la firma «${id}» no es un identificador XML válido (letras, dígitos, «.», «_» o «-», empezando por una letra).`);
  }
  const insert = inserter(xml, text, byteOffset, root, place);

  const digest = digestBase64(hash, canonicalize(root));
  const certificate = facts.der.toString('base64');
  const draft = insert(signatureXml({ id, hash, digest, signatureValue: '', certificate }));
  const signedInfo = draftSignedInfo(draft);
  const value = await signer.sign(Buffer.from(canonicalize(signedInfo), 'utf8'), hash);
  const signed = insert(signatureXml({ id, hash, digest, signatureValue: value.toString('base64'), certificate }));
  const check = verifyUblDsig(signed);
  if (!check.valid) {
    throw new SelloError('internal_error', {
      detail: `La firma producida no se pudo verificar (${check.problem ?? 'sin detalle'}); no se entrega. Si firma con un token, revise que la clave corresponda al certificado.`,
    });
  }
  return signed;
}

/** The one ext:ExtensionContent of the root's UBLExtensions with no element in it. */
function emptyExtensionContent(root: Element): Element {
  const empty = allElements(root).filter((el) => isUblExtensionContent(el, root) && elementChildren(el).length === 0 && textOf(el) === '');
  if (empty.length === 0) {
    throw new XmlProblem(
      'El XML no tiene un ext:ExtensionContent vacío dentro de ext:UBLExtensions/ext:UBLExtension (al inicio del comprobante); SUNAT exige la firma ahí. Agregue <ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent/></ext:UBLExtension></ext:UBLExtensions> como primer elemento.',
    );
  }
  if (empty.length > 1) throw new XmlProblem(`El XML tiene ${empty.length} ext:ExtensionContent vacíos; no se sabe en cuál va la firma. Deje uno solo.`);
  return empty[0] as Element;
}

/** "SignatureSP" from `<cbc:URI>#SignatureSP</cbc:URI>` of the document's only cac:Signature. */
function documentSignatureId(root: Element): string | undefined {
  const signatures = childrenNamed(root, CAC, 'Signature');
  if (signatures.length !== 1) return undefined;
  const attachment = onlyChild(signatures[0] as Element, CAC, 'DigitalSignatureAttachment');
  const reference = attachment && onlyChild(attachment, CAC, 'ExternalReference');
  const uri = textOf(reference && onlyChild(reference, CBC, 'URI'));
  return uri.startsWith('#') && uri.length > 1 ? uri.slice(1) : undefined;
}

/**
 * A function that returns the input with a signature's text inside `place`, found in the bytes:
 * the n-th start tag named like `place` (comments, CDATA sections and instructions masked, and
 * `<` never appears in attribute values), right after its `>`; an `<ext:ExtensionContent/>`
 * becomes a start and an end tag around the signature.
 */
function inserter(xml: Buffer, text: string, byteOffset: (at: number) => number, root: Element, place: Element): (signature: string) => Buffer {
  const name = place.tagName;
  const masked = text.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, (m) => ' '.repeat(m.length));
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const starts = [...masked.matchAll(new RegExp(`<${escaped}(?=[\\s/>])`, 'g'))].map((m) => m.index);
  const sameName = allElements(root).filter((el) => el.tagName === name);
  const at = starts[sameName.indexOf(place)];
  if (starts.length !== sameName.length || at === undefined) throw new Error(`no se encontró <${name}> en el texto del XML`);
  const startTag = new RegExp(`<${escaped}(?:\\s+[^\\s=/>]+\\s*=\\s*(?:"[^"]*"|'[^']*'))*\\s*(/?)>`, 'y');
  startTag.lastIndex = at;
  const tag = startTag.exec(masked);
  if (!tag) throw new Error(`no se pudo leer la etiqueta <${name}>`);
  const selfClosing = tag[1] === '/';
  const tagEnd = byteOffset(at + tag[0].length);
  if (!selfClosing) return (signature) => Buffer.concat([xml.subarray(0, tagEnd), Buffer.from(signature, 'utf8'), xml.subarray(tagEnd)]);
  const slash = byteOffset(masked.lastIndexOf('/', at + tag[0].length));
  return (signature) => Buffer.concat([xml.subarray(0, slash), Buffer.from(`>${signature}</${name}>`, 'utf8'), xml.subarray(tagEnd)]);
}

interface UblSignatureText {
  id: string;
  hash: XmlHash;
  digest: string;
  signatureValue: string;
  /** The certificate, base64 of its DER. */
  certificate: string;
}

/** The ds:Signature, ASCII only (so that it is the same bytes in UTF-8 and ISO-8859-1). */
function signatureXml(t: UblSignatureText): string {
  return (
    `<ds:Signature xmlns:ds="${DS}" Id="${t.id}">` +
    '<ds:SignedInfo>' +
    `<ds:CanonicalizationMethod Algorithm="${C14N}"/>` +
    `<ds:SignatureMethod Algorithm="${SIGNATURE_URI[t.hash]}"/>` +
    '<ds:Reference URI="">' +
    `<ds:Transforms><ds:Transform Algorithm="${ENVELOPED}"/></ds:Transforms>` +
    `<ds:DigestMethod Algorithm="${DIGEST_URI[t.hash]}"/>` +
    `<ds:DigestValue>${t.digest}</ds:DigestValue>` +
    '</ds:Reference>' +
    '</ds:SignedInfo>' +
    `<ds:SignatureValue>${t.signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${t.certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>` +
    '</ds:Signature>'
  );
}

/** The SignedInfo of the signature just inserted into the draft, in its context. */
function draftSignedInfo(draft: Buffer): Element {
  const { root } = parseXml(draft, undefined, { latin1: true });
  const signature = allElements(root).find((el) => isNamed(el, DS, 'Signature'));
  const signedInfo = signature && onlyChild(signature, DS, 'SignedInfo');
  if (!signedInfo) throw new Error('plantilla de firma incompleta');
  return signedInfo;
}
