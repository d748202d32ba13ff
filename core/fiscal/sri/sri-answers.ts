/**
 * The SRI's answers as plain values (WSDL types `respuestaSolicitud` and `respuestaComprobante`),
 * read from a parsed SOAP Body and checked: a state we do not know, or a missing one, makes the
 * answer unusable rather than guessed at. Texts are kept as the SRI wrote them (Spanish).
 */
import type { Element } from '@xmldom/xmldom';
import { childNamed, childrenNamed, shorten, textOf, UnexpectedAnswer, AUTORIZACION_NS, RECEPCION_NS } from './soap-common.js';

/** One `mensaje` of an answer. `tipo` is ERROR, ADVERTENCIA or INFORMATIVO, kept as written. */
export interface SriMessage {
  identificador: string;
  mensaje: string;
  informacionAdicional?: string;
  tipo: string;
}

export type RecepcionEstado = 'RECIBIDA' | 'DEVUELTA';

/** `validarComprobante`'s answer; `mensajes` gathers those of every `comprobante` in it. */
export interface RecepcionAnswer {
  estado: RecepcionEstado;
  /** The key the SRI read from the XML (`N/A` when it could not read one), when it said. */
  claveAcceso?: string;
  mensajes: SriMessage[];
}

export type AutorizacionEstado = 'AUTORIZADO' | 'NO AUTORIZADO' | 'EN PROCESO';

export interface SriAutorizacion {
  estado: AutorizacionEstado;
  /** The access key itself since 2014 (offline scheme). */
  numeroAutorizacion?: string;
  /** xs:dateTime as written, e.g. `2024-04-18T14:40:02-05:00`. */
  fechaAutorizacion?: string;
  /** `PRUEBAS` or `PRODUCCIÓN`, as written. */
  ambiente?: string;
  /** The signed comprobante as text (the CDATA's content). */
  comprobante?: string;
  mensajes: SriMessage[];
}

/** `autorizacionComprobante`'s answer: no `autorizaciones` means the SRI does not know the key (yet). */
export interface AutorizacionAnswer {
  claveAccesoConsultada?: string;
  autorizaciones: SriAutorizacion[];
}

const RECEPCION_STATES: readonly string[] = ['RECIBIDA', 'DEVUELTA'] satisfies RecepcionEstado[];
const AUTORIZACION_STATES: readonly string[] = ['AUTORIZADO', 'NO AUTORIZADO', 'EN PROCESO'] satisfies AutorizacionEstado[];

function optionalText(parent: Element | undefined, name: string): string | undefined {
  const el = childNamed(parent, name);
  if (!el) return undefined;
  const value = textOf(el).trim();
  return value === '' ? undefined : value;
}

function readMessages(parent: Element | undefined): SriMessage[] {
  return childrenNamed(childNamed(parent, 'mensajes'), 'mensaje').map((m) => {
    const informacionAdicional = optionalText(m, 'informacionAdicional');
    return {
      identificador: textOf(childNamed(m, 'identificador')).trim(),
      mensaje: textOf(childNamed(m, 'mensaje')).trim(),
      ...(informacionAdicional !== undefined ? { informacionAdicional } : {}),
      tipo: textOf(childNamed(m, 'tipo')).trim(),
    };
  });
}

function expectWrapper(element: Element, ns: string, name: string): void {
  if (element.localName !== name || element.namespaceURI !== ns) {
    throw new UnexpectedAnswer(`se esperaba {${ns}}${name} y llegó «${shorten(element.tagName)}»`);
  }
}

/** Reads `validarComprobanteResponse`. */
export function readRecepcionAnswer(element: Element): RecepcionAnswer {
  expectWrapper(element, RECEPCION_NS, 'validarComprobanteResponse');
  const respuesta = childNamed(element, 'RespuestaRecepcionComprobante');
  if (!respuesta) throw new UnexpectedAnswer('falta RespuestaRecepcionComprobante');
  const estado = textOf(childNamed(respuesta, 'estado')).trim();
  if (!RECEPCION_STATES.includes(estado)) throw new UnexpectedAnswer(`estado de recepción desconocido «${shorten(estado, 40)}»`);
  const comprobantes = childrenNamed(childNamed(respuesta, 'comprobantes'), 'comprobante');
  const claveAcceso = comprobantes.map((c) => optionalText(c, 'claveAcceso')).find((k) => k !== undefined);
  return {
    estado: estado as RecepcionEstado,
    ...(claveAcceso !== undefined ? { claveAcceso } : {}),
    mensajes: comprobantes.flatMap((c) => readMessages(c)),
  };
}

/** Reads `autorizacionComprobanteResponse`. */
export function readAutorizacionAnswer(element: Element): AutorizacionAnswer {
  expectWrapper(element, AUTORIZACION_NS, 'autorizacionComprobanteResponse');
  const respuesta = childNamed(element, 'RespuestaAutorizacionComprobante');
  if (!respuesta) throw new UnexpectedAnswer('falta RespuestaAutorizacionComprobante');
  const autorizaciones = childrenNamed(childNamed(respuesta, 'autorizaciones'), 'autorizacion').map((a): SriAutorizacion => {
    const estado = textOf(childNamed(a, 'estado')).trim();
    if (!AUTORIZACION_STATES.includes(estado)) throw new UnexpectedAnswer(`estado de autorización desconocido «${shorten(estado, 40)}»`);
    const numeroAutorizacion = optionalText(a, 'numeroAutorizacion');
    const fechaAutorizacion = optionalText(a, 'fechaAutorizacion');
    const ambiente = optionalText(a, 'ambiente');
    // Not trimmed: the comprobante is kept exactly as the SRI returned it.
    const comprobanteEl = childNamed(a, 'comprobante');
    const comprobante = comprobanteEl ? textOf(comprobanteEl) : undefined;
    return {
      estado: estado as AutorizacionEstado,
      ...(numeroAutorizacion !== undefined ? { numeroAutorizacion } : {}),
      ...(fechaAutorizacion !== undefined ? { fechaAutorizacion } : {}),
      ...(ambiente !== undefined ? { ambiente } : {}),
      ...(comprobante !== undefined && comprobante.trim() !== '' ? { comprobante } : {}),
      mensajes: readMessages(a),
    };
  });
  const claveAccesoConsultada = optionalText(respuesta, 'claveAccesoConsultada');
  return { ...(claveAccesoConsultada !== undefined ? { claveAccesoConsultada } : {}), autorizaciones };
}

/**
 * The SRI's messages as one text, CONTRACT §15 `failure_reason`:
 * `identificador: mensaje (informacionAdicional)` joined by `; `, the SRI's words untouched.
 *
 * @example
 *   formatSriMessages([{ identificador: '43', mensaje: 'CLAVE ACCESO REGISTRADA', tipo: 'ERROR' }])
 *   // '43: CLAVE ACCESO REGISTRADA'
 */
export function formatSriMessages(mensajes: readonly SriMessage[]): string {
  return mensajes
    .map((m) => {
      const head = m.identificador ? `${m.identificador}: ${m.mensaje}` : m.mensaje;
      return m.informacionAdicional ? `${head} (${m.informacionAdicional})` : head;
    })
    .join('; ');
}
