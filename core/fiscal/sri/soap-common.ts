/**
 * The SOAP 1.1 of the SRI's offline web services, the part with no XML parser: request
 * envelopes, the namespaces and services, and the helpers that read elements of a parsed answer
 * (soap-envelope.ts parses it). Apart so that what `sello serve` loads to send requests (the
 * SOAP client) does not load @xmldom: answers are parsed on their own thread
 * (answer-thread/), and esbuild's code splitting would put the parser into every start through
 * any static import of soap-envelope.ts (issue 17).
 */
import type { Element } from '@xmldom/xmldom';

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
