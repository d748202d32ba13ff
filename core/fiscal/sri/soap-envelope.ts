/**
 * The SOAP 1.1 of the SRI's offline web services, as their WSDLs say (document/literal,
 * `soapAction=""`, the operation element in the service's namespace and its children
 * unqualified): request envelopes, and a parser for answers that trusts nothing in them.
 */
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';

export const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const RECEPCION_NS = 'http://ec.gob.sri.ws.recepcion';
export const AUTORIZACION_NS = 'http://ec.gob.sri.ws.autorizacion';

/** The services' paths under a base URL such as `https://celcer.sri.gob.ec/comprobantes-electronicos-ws`. */
export const RECEPCION_SERVICE = 'RecepcionComprobantesOffline';
export const AUTORIZACION_SERVICE = 'AutorizacionComprobantesOffline';

function envelope(ns: string, body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:ec="${ns}">` +
    `<soapenv:Header/><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`
  );
}

/** `validarComprobante(xml: base64Binary)`: the signed comprobante's exact bytes, base64. */
export function validarComprobanteEnvelope(xml: Uint8Array): string {
  const base64 = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength).toString('base64');
  return envelope(RECEPCION_NS, `<ec:validarComprobante><xml>${base64}</xml></ec:validarComprobante>`);
}

/** `autorizacionComprobante(claveAccesoComprobante)`; the key is checked to be 49 digits by the caller. */
export function autorizacionComprobanteEnvelope(accessKey: string): string {
  if (!/^\d+$/.test(accessKey)) throw new TypeError('access key must be digits');
  return envelope(
    AUTORIZACION_NS,
    `<ec:autorizacionComprobante><claveAccesoComprobante>${accessKey}</claveAccesoComprobante></ec:autorizacionComprobante>`,
  );
}

/** An answer that is not the SOAP we expect; `message` is a short Spanish phrase. */
export class UnexpectedAnswer extends Error {
  override name = 'UnexpectedAnswer';
}

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

/** Element children, in order. */
export function elementChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let node = el.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) out.push(node as Element);
  }
  return out;
}

/**
 * The first child element of that local name. The WSDLs make these children unqualified,
 * but `ref`'d ones (`comprobante`, `mensaje`, `autorizacion`) are namespaced in the schema and
 * written both ways in the wild: match by local name only.
 */
export function childNamed(el: Element | undefined, localName: string): Element | undefined {
  return el ? elementChildren(el).find((e) => e.localName === localName) : undefined;
}

export function childrenNamed(el: Element | undefined, localName: string): Element[] {
  return el ? elementChildren(el).filter((e) => e.localName === localName) : [];
}

/** Text and CDATA content, or '' for a missing element. */
export function textOf(el: Element | undefined): string {
  return el?.textContent ?? '';
}

/** A phrase from the answer, cut for a message (the SRI's bytes never make a message unbounded). */
export function shorten(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
