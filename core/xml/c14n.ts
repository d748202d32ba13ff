/**
 * Canonical XML of one element, as XMLDSig digests and signs it: xml-crypto's implementations of
 * inclusive C14N 1.0 (20010315, the SRI's) and exclusive C14N (FirmaEC's), without comments, fed
 * with what they need from outside the element:
 * - the namespaces in scope from its ancestors, which inclusive C14N writes on the apex
 *   (C14N §2.4) and xml-crypto expects to be told;
 * - the enveloped-signature transform (XMLDSig §6.6.4), done by detaching the Signature for the
 *   time of the call rather than cloning the whole document.
 * Inclusive C14N would also inherit `xml:*` attributes of the ancestors, which xml-crypto does
 * not do: such documents are refused rather than digested differently from libxml2 or Java.
 */
import type { Element, Node } from '@xmldom/xmldom';
import { C14nCanonicalization, ExclusiveCanonicalization } from 'xml-crypto';
import { C14N, EXC_C14N, type CanonicalizationUri } from './algorithms.js';
import { isDescendant, isElement } from './dom.js';
import { XmlProblem } from './xml-input.js';

export interface CanonicalizeOptions {
  /** Inclusive C14N 1.0 by default. */
  algorithm?: CanonicalizationUri;
  /** The PrefixList of exclusive C14N's InclusiveNamespaces. */
  inclusivePrefixes?: string[];
  /** A descendant to leave out: the Signature, for the enveloped-signature transform. */
  without?: Element;
}

interface NamespaceBinding {
  prefix: string;
  namespaceURI: string;
}

const inclusive = new C14nCanonicalization();
const exclusive = new ExclusiveCanonicalization();

/**
 * @example canonicalize(root, { without: signature }) // what the Reference to #comprobante digests
 */
export function canonicalize(el: Element, opts: CanonicalizeOptions = {}): string {
  const algorithm = opts.algorithm ?? C14N;
  const ancestorNamespaces = inScopeNamespaces(el, algorithm === C14N);
  const cut = opts.without && isDescendant(opts.without, el) ? opts.without : undefined;
  const parent = cut?.parentNode;
  const next = cut?.nextSibling ?? null;
  if (cut && parent) parent.removeChild(cut);
  try {
    // xml-crypto is typed against the browser DOM; xmldom's nodes are what it walks at run time.
    const node = el as unknown as Parameters<C14nCanonicalization['process']>[0];
    if (algorithm === EXC_C14N) {
      return exclusive.process(node, { inclusiveNamespacesPrefixList: opts.inclusivePrefixes ?? [], ancestorNamespaces });
    }
    return inclusive.process(node, { ancestorNamespaces });
  } finally {
    if (cut && parent) parent.insertBefore(cut, next);
  }
}

/**
 * The namespace declarations of the ancestors still in scope at `el`, outermost first (the
 * nearest declaration of a prefix wins; `xmlns=""` undeclares the default).
 */
function inScopeNamespaces(el: Element, refuseXmlAttributes: boolean): NamespaceBinding[] {
  const seen = new Set<string>();
  const found: NamespaceBinding[] = [];
  for (let n: Node | null = el.parentNode; isElement(n); n = n.parentNode) {
    const attrs = n.attributes;
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i);
      if (!a) continue;
      const prefix = a.name === 'xmlns' ? '' : a.prefix === 'xmlns' ? (a.localName ?? undefined) : undefined;
      if (prefix === undefined) {
        if (refuseXmlAttributes && a.prefix === 'xml') {
          throw new XmlProblem(`El XML usa el atributo ${a.name} en <${n.nodeName}>; Sello no firma ni verifica XML con atributos xml:* heredables.`);
        }
        continue;
      }
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      if (a.value !== '') found.push({ prefix, namespaceURI: a.value });
    }
  }
  return found.reverse();
}
