/**
 * `signXadesBes`: the enveloped XAdES-BES signature of a comprobante, as the SRI accepts it.
 *
 * The input bytes are never re-serialised: the signature is inserted as text right before the
 * root's end tag, and what is digested is read back from a parse of exactly the bytes returned.
 * The steps:
 * 1. the comprobante is parsed and its root canonicalized: the digest of `#comprobante`;
 * 2. the signature is written with that digest and placeholders, inserted, and the whole is
 *    parsed again, so that SignedProperties and KeyInfo are digested in their real context
 *    (inclusive C14N carries the namespaces in scope);
 * 3. the SignedInfo, with those digests filled in, is canonicalized and signed by the signer
 *    (a key in memory or a token);
 * 4. the signature is written again with the values and checked with `verifyXadesBes` before
 *    the bytes are handed back: a token whose key does not match its certificate fails here.
 */
import type { Element } from '@xmldom/xmldom';
import { SelloError } from '../errors/index.js';
import { digestBase64, DS, XADES, type XmlHash } from './algorithms.js';
import { canonicalize } from './c14n.js';
import { assertXmlSigningCertificate, certificateFacts } from './certificate.js';
import { allElements, childrenNamed, elementChildren, isNamed, onlyChild } from './dom.js';
import type { XmlSigner } from './signer.js';
import { verifyXadesBes } from './verify.js';
import { signatureIds, signatureXml, xmlDateTime, type SignatureText } from './xades-template.js';
import { parseXml, XmlProblem, type Room } from './xml-input.js';

export interface SignXadesOptions {
  /** SHA-1 (default: what the SRI has always accepted) or SHA-256. */
  hash?: XmlHash;
  /** The SigningTime to write; now by default. */
  signingTime?: Date;
}

/** The id the SRI's schemas require on the root of every comprobante. */
export const COMPROBANTE_ID = 'comprobante';

/** What the signature adds: about 4 KB with a large certificate, 40 tags, 2 namespaces. */
const SIGNATURE_ROOM: Room = { bytes: 64 * 1024, tags: 100, namespaces: 2 };

/**
 * Signs `xml` (UTF-8 bytes of a comprobante whose root has `id="comprobante"`) and returns the
 * exact bytes to send. Throws SelloError: `xml_invalid`, `certificate_key_type`,
 * `certificate_key_usage`, and whatever the signer throws (`certificate_expired`, `pin_*`…).
 *
 * @example
 *   const signed = await signXadesBes(await readFile('factura.xml'), xmlSignerFrom(source));
 */
export async function signXadesBes(xml: Buffer, signer: XmlSigner, opts: SignXadesOptions = {}): Promise<Buffer> {
  try {
    return await sign(xml, signer, opts);
  } catch (err) {
    // Whatever in the document stopped the signature (an inherited xml:* attribute…), said as such.
    if (err instanceof XmlProblem) throw new SelloError('xml_invalid', { detail: err.message });
    throw err;
  }
}

async function sign(xml: Buffer, signer: XmlSigner, opts: SignXadesOptions): Promise<Buffer> {
  const hash = opts.hash ?? 'sha1';
  const facts = certificateFacts(signer.certificate);
  assertXmlSigningCertificate(facts);
  const { root, end } = readComprobante(xml);

  const base: Omit<SignatureText, 'digests' | 'signatureValue'> = {
    ids: signatureIds(),
    rootId: COMPROBANTE_ID,
    hash,
    certificate: { ...facts, digest: digestBase64(hash, facts.der) },
    signingTime: xmlDateTime(opts.signingTime ?? new Date()),
  };
  const documentDigest = digestBase64(hash, canonicalize(root));
  const insert = (signature: string): Buffer => Buffer.concat([xml.subarray(0, end), Buffer.from(signature, 'utf8'), xml.subarray(end)]);

  const draft = insert(signatureXml({ ...base, digests: { document: documentDigest, signedProperties: '', keyInfo: '' }, signatureValue: '' }));
  const { signedInfo, signedProperties, keyInfo } = draftParts(draft);
  const digests = {
    document: documentDigest,
    signedProperties: digestBase64(hash, canonicalize(signedProperties)),
    keyInfo: digestBase64(hash, canonicalize(keyInfo)),
  };
  // The References are written in this order by signatureXml: comprobante, SignedProperties, KeyInfo.
  const references = childrenNamed(signedInfo, DS, 'Reference');
  [digests.document, digests.signedProperties, digests.keyInfo].forEach((value, i) => {
    const digestValue = references[i] && onlyChild(references[i], DS, 'DigestValue');
    if (!digestValue?.ownerDocument) throw new Error('plantilla de firma sin DigestValue');
    while (digestValue.firstChild) digestValue.removeChild(digestValue.firstChild);
    digestValue.appendChild(digestValue.ownerDocument.createTextNode(value));
  });

  const signatureValue = await signer.sign(Buffer.from(canonicalize(signedInfo), 'utf8'), hash);
  const signed = insert(signatureXml({ ...base, digests, signatureValue: signatureValue.toString('base64') }));
  const check = verifyXadesBes(signed);
  if (!check.valid) {
    throw new SelloError('internal_error', {
      detail: `La firma producida no se pudo verificar (${check.problem ?? 'sin detalle'}); no se entrega. Si firma con un token, revise que la clave corresponda al certificado.`,
    });
  }
  return signed;
}

/** The parsed comprobante and the byte offset of its root's end tag, where the signature goes. */
function readComprobante(xml: Buffer): { root: Element; end: number } {
  const { root } = parseXml(xml, SIGNATURE_ROOM);
  const name = root.tagName;
  if (root.getAttribute('id') !== COMPROBANTE_ID) {
    throw new SelloError('xml_invalid', {
      detail: `El elemento raíz <${name}> debe llevar id="${COMPROBANTE_ID}" (en minúsculas), como exigen los esquemas del SRI; la firma se refiere a él.`,
    });
  }
  if (allElements(root).some((el) => isNamed(el, DS, 'Signature'))) {
    throw new SelloError('xml_invalid', { detail: 'El XML ya está firmado; el SRI admite una sola firma por comprobante. Firme el XML original, sin firma.' });
  }
  let last = xml.length;
  while (last > 0 && [0x20, 0x09, 0x0a, 0x0d].includes(xml[last - 1] ?? 0)) last--;
  const end = xml.lastIndexOf('</', last);
  const endTag = end >= 0 ? xml.subarray(end + 2, last).toString('utf8') : '';
  if (!new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ \\t\\r\\n]*>$`).test(endTag)) {
    throw new SelloError('xml_invalid', { detail: `El comprobante <${name}> está vacío; no hay nada que firmar.` });
  }
  return { root, end };
}

/** SignedInfo, SignedProperties and KeyInfo of the signature just inserted (the root's last child). */
function draftParts(draft: Buffer): { signedInfo: Element; signedProperties: Element; keyInfo: Element } {
  const { root } = parseXml(draft);
  const signature = elementChildren(root).pop();
  if (!signature || !isNamed(signature, DS, 'Signature')) throw new Error('la firma insertada no quedó al final del comprobante');
  const signedInfo = onlyChild(signature, DS, 'SignedInfo');
  const keyInfo = onlyChild(signature, DS, 'KeyInfo');
  const object = onlyChild(signature, DS, 'Object');
  const qualifying = object && onlyChild(object, XADES, 'QualifyingProperties');
  const signedProperties = qualifying && onlyChild(qualifying, XADES, 'SignedProperties');
  if (!signedInfo || !keyInfo || !signedProperties) throw new Error('plantilla de firma incompleta');
  return { signedInfo, signedProperties, keyInfo };
}
