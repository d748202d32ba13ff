/**
 * Reads the parts of a ds:Signature that the verifier checks, refusing whatever the profile does
 * not allow: unknown algorithms, References that leave the document (never fetched), ambiguous
 * ids (signature wrapping), transforms other than enveloped-signature and C14N.
 */
import type { Element } from '@xmldom/xmldom';
import { C14N, digestHashOf, DS, ENVELOPED, EXC_C14N, signatureHashOf, type CanonicalizationUri, type XmlHash } from './algorithms.js';
import { allElements, childrenNamed, elementChildren, isNamed, onlyChild, textOf } from './dom.js';
import { XmlProblem } from './xml-input.js';

const EXC_C14N_NS = 'http://www.w3.org/2001/10/xml-exc-c14n#';

export interface Canonicalization {
  algorithm: CanonicalizationUri;
  inclusivePrefixes: string[];
}

export interface ParsedReference {
  uri: string;
  target: Element;
  enveloped: boolean;
  canonicalization: Canonicalization;
  hash: XmlHash;
  digest: Buffer;
}

export interface SignatureParts {
  signedInfo: Element;
  canonicalization: Canonicalization;
  hash: XmlHash;
  signatureValue: Buffer;
  keyInfo: Element;
  references: ParsedReference[];
}

/** Resolves `#id` against the ids of the document: `id`, `Id` or `ID` attributes, each unique. */
export type IdResolver = (uri: string) => Element;

export function idResolver(root: Element): IdResolver {
  const byId = new Map<string, Element[]>();
  for (const el of allElements(root)) {
    for (const name of ['id', 'Id', 'ID']) {
      const value = el.getAttribute(name);
      if (value !== null) byId.set(value, [...(byId.get(value) ?? []), el]);
    }
  }
  return (uri) => {
    if (!uri.startsWith('#') || uri.length < 2 || uri.startsWith('#xpointer(')) {
      throw new XmlProblem(`La firma tiene una referencia a «${uri}», que no es un elemento del mismo documento; Sello no sigue referencias externas ni XPointer.`);
    }
    const found = byId.get(uri.slice(1)) ?? [];
    if (found.length === 0) throw new XmlProblem(`La firma se refiere a ${uri}, pero ningún elemento del XML tiene ese id.`);
    if (found.length > 1) {
      throw new XmlProblem(`El id «${uri.slice(1)}» aparece ${found.length} veces en el XML: no se sabe qué cubre la firma (posible intento de suplantar el contenido firmado).`);
    }
    return found[0] as Element;
  };
}

/** The SignedInfo, SignatureValue, KeyInfo and References of `signature`. */
export function signatureParts(signature: Element, resolve: IdResolver): SignatureParts {
  const kids = elementChildren(signature);
  const [signedInfo, valueEl] = kids;
  if (!signedInfo || !isNamed(signedInfo, DS, 'SignedInfo') || !valueEl || !isNamed(valueEl, DS, 'SignatureValue')) {
    throw new XmlProblem('La firma no empieza con SignedInfo y SignatureValue, como exige XMLDSig.');
  }
  const keyInfo = onlyChild(signature, DS, 'KeyInfo');
  if (!keyInfo) throw new XmlProblem('La firma no tiene exactamente un KeyInfo con el certificado del firmante.');
  const [method, sigMethod, ...refs] = elementChildren(signedInfo);
  if (!method || !isNamed(method, DS, 'CanonicalizationMethod') || !sigMethod || !isNamed(sigMethod, DS, 'SignatureMethod')) {
    throw new XmlProblem('SignedInfo no tiene CanonicalizationMethod y SignatureMethod.');
  }
  const hash = signatureHashOf(sigMethod.getAttribute('Algorithm'));
  if (!hash) throw new XmlProblem(`El algoritmo de firma ${sigMethod.getAttribute('Algorithm') ?? '(ninguno)'} no es RSA-SHA1 ni RSA-SHA256; Sello no lo admite.`);
  if (refs.length === 0 || refs.some((r) => !isNamed(r, DS, 'Reference'))) throw new XmlProblem('SignedInfo debe contener solo referencias (Reference), al menos una.');
  return {
    signedInfo,
    canonicalization: canonicalizationOf(method),
    hash,
    signatureValue: base64(textOf(valueEl), 'SignatureValue'),
    keyInfo,
    references: refs.map((r) => referenceOf(r, resolve)),
  };
}

function referenceOf(ref: Element, resolve: IdResolver): ParsedReference {
  const uri = ref.getAttribute('URI') ?? '';
  const transforms = onlyChild(ref, DS, 'Transforms');
  const steps = transforms ? childrenNamed(transforms, DS, 'Transform') : [];
  if (transforms && steps.length !== elementChildren(transforms).length) throw new XmlProblem(`La referencia ${uri} tiene transformaciones desconocidas.`);
  let enveloped = false;
  let canonicalization: Canonicalization = { algorithm: C14N, inclusivePrefixes: [] };
  steps.forEach((step, i) => {
    const algorithm = step.getAttribute('Algorithm');
    if (algorithm === ENVELOPED && i === 0) enveloped = true;
    else if ((algorithm === C14N || algorithm === EXC_C14N) && i === steps.length - 1) canonicalization = canonicalizationOf(step);
    else throw new XmlProblem(`La referencia ${uri} usa la transformación ${algorithm ?? '(ninguna)'}; Sello solo admite enveloped-signature y C14N.`);
  });
  const digestMethod = onlyChild(ref, DS, 'DigestMethod');
  const hash = digestHashOf(digestMethod?.getAttribute('Algorithm') ?? null);
  if (!hash) throw new XmlProblem(`La referencia ${uri} usa un algoritmo de resumen que Sello no admite (solo SHA-1 y SHA-256).`);
  return { uri, target: resolve(uri), enveloped, canonicalization, hash, digest: base64(textOf(onlyChild(ref, DS, 'DigestValue')), `DigestValue de ${uri}`) };
}

function canonicalizationOf(el: Element): Canonicalization {
  const algorithm = el.getAttribute('Algorithm');
  if (algorithm !== C14N && algorithm !== EXC_C14N) {
    throw new XmlProblem(`El método de canonicalización ${algorithm ?? '(ninguno)'} no es C14N 1.0 ni C14N exclusivo (sin comentarios); Sello no lo admite.`);
  }
  const inclusive = algorithm === EXC_C14N ? onlyChild(el, EXC_C14N_NS, 'InclusiveNamespaces') : undefined;
  const prefixes = (inclusive?.getAttribute('PrefixList') ?? '').split(/\s+/).filter((p) => p !== '');
  return { algorithm, inclusivePrefixes: prefixes };
}

/** Base64 with any white space (XML wraps it at 76 columns), or an XmlProblem naming `what`. */
export function base64(text: string, what: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw new XmlProblem(`${what} no es base64 válido.`);
  return Buffer.from(compact, 'base64');
}
