/**
 * The `autorizacion` a purchase often arrives in: the SRI's authorization answer, as suppliers
 * e-mail it (`<autorizacion><estado>AUTORIZADO</estado><numeroAutorizacion>…<comprobante>` with
 * the signed comprobante as text, in CDATA or escaped), alone or inside the answer's
 * `RespuestaAutorizacionComprobante` (with or without its SOAP envelope).
 *
 * Nobody signs the wrapper: its estado, number and date are what the file claims. They refuse a
 * document the SRI did not authorize and are kept as the SRI's word; the comprobante inside is
 * what the signature proves.
 */
import type { Element } from '@xmldom/xmldom';
import { PurchaseRefused } from './purchase-limits.js';
import { formatSriMessages, type SriMessage } from './sri-answers.js';

export interface WrappedComprobante {
  /** The comprobante's text, as the wrapper held it (white space before it dropped). */
  comprobante: string;
  /** `numeroAutorizacion`: 49 digits (the access key) or 37 (the scheme before 2014). */
  number: string;
  /** `fechaAutorizacion` as an ISO date-time when it could be read as one, else as written. */
  date: string;
  /** `ambiente` (PRUEBAS, PRODUCCIÓN) as 1 or 2, when it says one of them. */
  ambiente?: 1 | 2 | undefined;
}

const ELEMENT = 1;

function elements(parent: Element): Element[] {
  const out: Element[] = [];
  for (let c = parent.firstChild; c; c = c.nextSibling) if (c.nodeType === ELEMENT) out.push(c as Element);
  return out;
}

/** By local name: the SRI's answers qualify some of these elements and not others, and copies differ. */
function child(parent: Element | undefined, localName: string): Element | undefined {
  return parent ? elements(parent).find((e) => e.localName === localName) : undefined;
}

function text(el: Element | undefined): string {
  return (el?.textContent ?? '').trim();
}

function cut(value: string, max = 200): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * The `autorizacion` elements `root` holds, or undefined when `root` is no wrapper (a comprobante,
 * or anything else: the caller says what it is).
 */
function authorizationsIn(root: Element): Element[] | undefined {
  let el: Element | undefined = root;
  if (el.localName === 'Envelope') {
    const body = child(el, 'Body');
    el = body && elements(body)[0];
    if (!el || el.localName !== 'autorizacionComprobanteResponse') throw new PurchaseRefused('El XML es una respuesta SOAP que no trae una autorización del SRI.');
  }
  if (el.localName === 'autorizacionComprobanteResponse') el = child(el, 'RespuestaAutorizacionComprobante');
  if (!el) throw new PurchaseRefused('La respuesta del SRI no trae RespuestaAutorizacionComprobante.');
  if (el.localName === 'RespuestaAutorizacionComprobante') return elements(child(el, 'autorizaciones') ?? el).filter((a) => a.localName === 'autorizacion');
  if (el.localName === 'autorizacion') return [el];
  return undefined;
}

/**
 * The comprobante an authorization wrapper holds, when `root` is one whose estado is AUTORIZADO;
 * undefined when `root` is not a wrapper. Refuses any other estado, a missing comprobante, an
 * authorization number that is not one.
 *
 * @example const wrapped = unwrapAuthorization(parseXml(bytes).root); // { comprobante: '<?xml…', number: '…', date: '…' }
 */
export function unwrapAuthorization(root: Element): WrappedComprobante | undefined {
  const all = authorizationsIn(root);
  if (!all) return undefined;
  if (all.length === 0) throw new PurchaseRefused('La respuesta del SRI no trae ninguna autorización: el SRI no conoce ese comprobante o aún no lo autoriza.');
  // The SRI lists every attempt for a key; one AUTORIZADO among them is the document's authorization.
  const authorized = all.find((a) => text(child(a, 'estado')) === 'AUTORIZADO');
  if (!authorized) {
    const first = all[0] as Element;
    const estado = text(child(first, 'estado'));
    if (!estado) throw new PurchaseRefused('La autorización no dice su estado; Sello solo registra comprobantes que el SRI autorizó.');
    const mensajes = cut(formatSriMessages(messagesOf(first)), 400);
    throw new PurchaseRefused(`El SRI no autorizó este comprobante: la autorización dice ${cut(estado, 40)}${mensajes ? ` (${mensajes})` : ''}.`);
  }
  const number = text(child(authorized, 'numeroAutorizacion'));
  if (!number) throw new PurchaseRefused('La autorización no trae su número (numeroAutorizacion).');
  if (!/^(\d{49}|\d{37})$/.test(number)) {
    throw new PurchaseRefused(`El número de autorización «${cut(number, 60)}» no es una clave de acceso (49 dígitos) ni un número de autorización del esquema anterior (37 dígitos).`);
  }
  const written = text(child(authorized, 'fechaAutorizacion'));
  if (!written) throw new PurchaseRefused('La autorización no trae su fecha (fechaAutorizacion).');
  const date = isoAuthorizationDate(written);
  if (!date) throw new PurchaseRefused(`La fecha de autorización «${cut(written, 60)}» no es una fecha legible.`);
  const holder = child(authorized, 'comprobante');
  if (holder && elements(holder).length > 0) {
    throw new PurchaseRefused('La autorización trae el comprobante como elementos XML y no como texto (CDATA): así no se conservan sus bytes firmados.');
  }
  // Leading white space only: before an XML declaration it makes the text ill-formed. What follows
  // the root stays, so the text kept is the one the supplier's signer wrote.
  const comprobante = (holder?.textContent ?? '').trimStart();
  if (!comprobante) throw new PurchaseRefused('La autorización no trae el comprobante (comprobante está vacío).');
  const ambiente = text(child(authorized, 'ambiente')).toUpperCase();
  return {
    comprobante,
    number,
    date,
    ambiente: ambiente === 'PRUEBAS' ? 1 : ambiente === 'PRODUCCIÓN' || ambiente === 'PRODUCCION' ? 2 : undefined,
  };
}

function messagesOf(autorizacion: Element): SriMessage[] {
  return elements(child(autorizacion, 'mensajes') ?? autorizacion)
    .filter((m) => m.localName === 'mensaje')
    .slice(0, 20)
    .map((m) => {
      const informacionAdicional = text(child(m, 'informacionAdicional'));
      return {
        identificador: text(child(m, 'identificador')),
        mensaje: text(child(m, 'mensaje')),
        tipo: text(child(m, 'tipo')),
        ...(informacionAdicional ? { informacionAdicional } : {}),
      };
    });
}

/**
 * `fechaAutorizacion` as ISO: xs:dateTime with its offset as written (what the SRI's service
 * answers today); `dd/mm/aaaa hh:mm[:ss]` (older answers and some suppliers' copies) in Ecuador's
 * mainland time, UTC−5 all year; anything else as written when short, else undefined.
 */
export function isoAuthorizationDate(written: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(written)) return written;
  const m = /^(\d{2})\/(\d{2})\/(\d{4})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(written);
  if (m) {
    const [, d, mo, y, h, mi, s = '00'] = m;
    const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    const real = day.getUTCDate() === Number(d) && day.getUTCMonth() === Number(mo) - 1 && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60;
    if (real) return `${y}-${mo}-${d}T${h}:${mi}:${s}-05:00`;
  }
  return written.length <= 64 ? written : undefined;
}
