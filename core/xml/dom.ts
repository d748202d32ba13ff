/**
 * The few DOM walks the signer and the verifier share, over @xmldom/xmldom nodes. Explicit
 * child-by-child walks rather than XPath: what is found is exactly where the profile puts it.
 */
import type { Element, Node } from '@xmldom/xmldom';

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;

export function isElement(node: Node | null | undefined): node is Element {
  return !!node && node.nodeType === ELEMENT;
}

/** The element children of `el`, in order. */
export function elementChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let c = el.firstChild; c; c = c.nextSibling) if (isElement(c)) out.push(c);
  return out;
}

export function isNamed(el: Element, ns: string, localName: string): boolean {
  return el.namespaceURI === ns && el.localName === localName;
}

/** The children of `el` named {ns}localName. */
export function childrenNamed(el: Element, ns: string, localName: string): Element[] {
  return elementChildren(el).filter((c) => isNamed(c, ns, localName));
}

/** The one child named {ns}localName, or undefined when there is none or more than one. */
export function onlyChild(el: Element, ns: string, localName: string): Element | undefined {
  const found = childrenNamed(el, ns, localName);
  return found.length === 1 ? found[0] : undefined;
}

/** The text of an element, trimmed (DigestValue, X509Certificate, SigningTime…). */
export function textOf(el: Element | undefined): string {
  if (!el) return '';
  let out = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === TEXT || c.nodeType === CDATA) out += c.nodeValue ?? '';
  }
  return out.trim();
}

/** True when only white space follows `node` among its siblings. */
export function nothingAfter(node: Node): boolean {
  for (let n = node.nextSibling; n; n = n.nextSibling) {
    if (n.nodeType !== TEXT || (n.nodeValue ?? '').trim() !== '') return false;
  }
  return true;
}

export function isDescendant(node: Node, ancestor: Node): boolean {
  for (let n = node.parentNode; n; n = n.parentNode) if (n === ancestor) return true;
  return false;
}

/** Every element of the subtree of `root`, document order, without recursion. */
export function allElements(root: Element): Element[] {
  const out: Element[] = [];
  const stack: Element[] = [root];
  for (let el = stack.pop(); el; el = stack.pop()) {
    out.push(el);
    const kids = elementChildren(el);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Element);
  }
  return out;
}
