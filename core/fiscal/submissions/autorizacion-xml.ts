/**
 * The XML Sello keeps and serves for an authorized comprobante (`GET …/:id/xml`, CONTRACT §15):
 * the SRI's `autorizacion` element — estado, numeroAutorizacion, fechaAutorizacion, ambiente,
 * the comprobante in CDATA, mensajes — as the SRI returns it and as offices archive it, built
 * here around the exact signed bytes Sello sent (not the SRI's copy of them), so that the
 * signature inside verifies byte for byte.
 */
import type { SriAutorizacion } from '../sri/index.js';

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function el(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeText(value)}</${name}>`;
}

/** CDATA holding `text` exactly; a `]]>` inside is split over two sections (XML 1.0 §2.7). */
export function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/**
 * @example
 *   autorizacionXml({ estado: 'AUTORIZADO', numeroAutorizacion: key, fechaAutorizacion: '2026-03-10T10:15:30-05:00', ambiente: 'PRUEBAS', mensajes: [] }, signedBytes)
 *   // <?xml version="1.0" encoding="UTF-8"?>\n<autorizacion><estado>AUTORIZADO</estado>…<comprobante><![CDATA[<?xml …<factura …>…]]></comprobante>…
 */
export function autorizacionXml(autorizacion: Omit<SriAutorizacion, 'comprobante'>, signed: Buffer): string {
  const mensajes = autorizacion.mensajes
    .map(
      (m) =>
        `<mensaje>${el('identificador', m.identificador)}${el('mensaje', m.mensaje)}${el('informacionAdicional', m.informacionAdicional)}${el('tipo', m.tipo)}</mensaje>`,
    )
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<autorizacion>' +
    el('estado', autorizacion.estado) +
    el('numeroAutorizacion', autorizacion.numeroAutorizacion) +
    el('fechaAutorizacion', autorizacion.fechaAutorizacion) +
    el('ambiente', autorizacion.ambiente) +
    `<comprobante>${cdata(signed.toString('utf8'))}</comprobante>` +
    `<mensajes>${mensajes}</mensajes>` +
    '</autorizacion>\n'
  );
}
