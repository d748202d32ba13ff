/**
 * The SOAP 1.1 of the SRI's offline web services, as their WSDLs say (document/literal,
 * `soapAction=""`, the operation element in the service's namespace and its children
 * unqualified): request envelopes (soap-common.ts, which needs no XML parser), and a parser
 * for answers that trusts nothing in them.
 */
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import { childNamed, elementChildren, shorten, SOAP_ENV_NS, textOf, UnexpectedAnswer } from './soap-common.js';

export {
  AUTORIZACION_NS,
  AUTORIZACION_SERVICE,
  autorizacionComprobanteEnvelope,
  childNamed,
  childrenNamed,
  elementChildren,
  RECEPCION_NS,
  RECEPCION_SERVICE,
  shorten,
  SOAP_ENV_NS,
  textOf,
  UnexpectedAnswer,
  validarComprobanteEnvelope,
} from './soap-common.js';

export type SoapAnswer =
  | { kind: 'body'; element: Element }
  | { kind: 'fault'; faultcode: string; faultstring: string };

/**
 * Parses an answer's text and returns the first element of its Body, or its Fault. Refuses
 * what a SOAP 1.1 answer never needs and an attacker would: a DOCTYPE (entities), anything
 * the parser calls an error, another envelope version, a missing Body.
 */
export function parseSoapAnswer(text: string): SoapAnswer {
  // A DTD can only stand in the prolog, before the root element's start tag.
  const rootAt = text.search(/<[\p{L}_:]/u);
  if (/<!DOCTYPE/i.test(rootAt < 0 ? text : text.slice(0, rootAt))) {
    throw new UnexpectedAnswer('trae una declaración DOCTYPE, que se rechaza');
  }
  let problem: string | undefined;
  let doc: Document;
  try {
    doc = new DOMParser({
      // Stop at the first error, not only at fatal ones (an undefined entity is an "error").
      onError: (level, message) => {
        if (level === 'warning') return;
        problem ??= message;
        throw new Error(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (err) {
    throw new UnexpectedAnswer(`no es XML bien formado (${shorten(problem ?? (err instanceof Error ? err.message : String(err)))})`);
  }
  if (doc.doctype) throw new UnexpectedAnswer('trae una declaración DOCTYPE, que se rechaza');
  const root = doc.documentElement;
  if (!root || root.localName !== 'Envelope' || root.namespaceURI !== SOAP_ENV_NS) {
    throw new UnexpectedAnswer(`no es un sobre SOAP 1.1 (raíz «${shorten(root?.tagName ?? '')}»)`);
  }
  const body = elementChildren(root).find((e) => e.localName === 'Body' && e.namespaceURI === SOAP_ENV_NS);
  if (!body) throw new UnexpectedAnswer('el sobre SOAP no tiene Body');
  const first = elementChildren(body)[0];
  if (!first) throw new UnexpectedAnswer('el Body SOAP está vacío');
  if (first.localName === 'Fault' && first.namespaceURI === SOAP_ENV_NS) {
    return {
      kind: 'fault',
      faultcode: textOf(childNamed(first, 'faultcode')).trim(),
      faultstring: textOf(childNamed(first, 'faultstring')).trim(),
    };
  }
  return { kind: 'body', element: first };
}

