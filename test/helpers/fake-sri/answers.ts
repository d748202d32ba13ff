/**
 * The fake SRI's words: SOAP answers shaped as the real services write them (WSDL types
 * `respuestaSolicitud` / `respuestaComprobante`; `ns2:` wrapper, unqualified children,
 * the comprobante in CDATA) and the SRI's messages with the wording public sources show
 * (its Ficha técnica, table "Códigos de errores y advertencias", and answers quoted in
 * OCA/l10n-ecuador and other clients' tests).
 */

export interface FakeMessage {
  identificador: string;
  mensaje: string;
  informacionAdicional?: string;
  /** ERROR (default), ADVERTENCIA, INFORMATIVO. */
  tipo?: string;
}

/** The SRI's messages, as it words them. */
export const sriMessages = {
  /** 35: the XML is not well formed or fails its XSD (RECEPCIÓN). */
  estructura: (detalle: string): FakeMessage => ({
    identificador: '35',
    mensaje: 'ARCHIVO NO CUMPLE ESTRUCTURA XML',
    informacionAdicional: `Se encontró el siguiente error en la estructura del comprobante: ${detalle}`,
    tipo: 'ERROR',
  }),
  /** 36: a version of the schema that is not (or no longer) accepted (RECEPCIÓN). */
  versionDescontinuada: (detalle: string): FakeMessage => ({
    identificador: '36',
    mensaje: 'VERSION ESQUEMA DESCONTINUADA',
    informacionAdicional: detalle,
    tipo: 'ERROR',
  }),
  /** 39: the issuer's signature is not valid (AUTORIZACIÓN at the real SRI). */
  firmaInvalida: (detalle: string): FakeMessage => ({ identificador: '39', mensaje: 'FIRMA INVALIDA', informacionAdicional: detalle, tipo: 'ERROR' }),
  /** 43: the access key is already registered (RECEPCIÓN). */
  claveRegistrada: (): FakeMessage => ({ identificador: '43', mensaje: 'CLAVE ACCESO REGISTRADA', tipo: 'ERROR' }),
  /** 45: the sequential number of that issuer, series and type is already registered (RECEPCIÓN). */
  secuencialRegistrado: (): FakeMessage => ({ identificador: '45', mensaje: 'ERROR SECUENCIAL REGISTRADO', tipo: 'ERROR' }),
  /** 49: the web service was called without its argument (RECEPCIÓN). */
  argumentosNulos: (): FakeMessage => ({ identificador: '49', mensaje: 'ARGUMENTOS QUE ENVIAN AL WS NULOS', tipo: 'ERROR' }),
  /** 58: the key's components differ from the comprobante's (AUTORIZACIÓN at the real SRI). */
  estructuraClave: (detalle: string): FakeMessage => ({
    identificador: '58',
    mensaje: 'ERROR EN LA ESTRUCTURA DE CLAVE ACCESO',
    informacionAdicional: detalle,
    tipo: 'ERROR',
  }),
  /** 60: always added to authorizations in the test environment (advertencia). */
  ambientePruebas: (): FakeMessage => ({ identificador: '60', mensaje: 'ESTE PROCESO FUE REALIZADO EN EL AMBIENTE DE PRUEBAS', tipo: 'ADVERTENCIA' }),
  /** 65: issue date out of the tolerance (quoted from OCA/l10n-ecuador's tests). */
  fechaExtemporanea: (): FakeMessage => ({
    identificador: '65',
    mensaje: 'FECHA EMISIÓN EXTEMPORANEA',
    informacionAdicional: 'La fecha de emisión está fuera del rango de tolerancia [129600 minutos], o es mayor a la fecha del servidor',
    tipo: 'ERROR',
  }),
  /** 70: sent before and still being processed (RECEPCIÓN). */
  enProcesamiento: (): FakeMessage => ({ identificador: '70', mensaje: 'CLAVE DE ACCESO EN PROCESAMIENTO', tipo: 'ERROR' }),
  /** 80: an authorization query whose key is not 49 digits (AUTORIZACIÓN). */
  claveConsultaInvalida: (): FakeMessage => ({ identificador: '80', mensaje: 'ERROR EN LA ESTRUCTURA DE CLAVE ACCESO', tipo: 'ERROR' }),
} as const;

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Text as CDATA; a `]]>` inside is split across two sections. */
export function cdata(text: string): string {
  return `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

function envelope(inner: string): string {
  return `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
}

function messagesXml(mensajes: readonly FakeMessage[]): string {
  if (mensajes.length === 0) return '<mensajes/>';
  return (
    '<mensajes>' +
    mensajes
      .map(
        (m) =>
          `<mensaje><identificador>${escapeXml(m.identificador)}</identificador><mensaje>${escapeXml(m.mensaje)}</mensaje>` +
          (m.informacionAdicional !== undefined ? `<informacionAdicional>${escapeXml(m.informacionAdicional)}</informacionAdicional>` : '') +
          `<tipo>${escapeXml(m.tipo ?? 'ERROR')}</tipo></mensaje>`,
      )
      .join('') +
    '</mensajes>'
  );
}

/** `validarComprobanteResponse`: RECIBIDA carries an empty `comprobantes`, DEVUELTA the key and its messages. */
export function recepcionAnswer(estado: 'RECIBIDA' | 'DEVUELTA', claveAcceso: string, mensajes: readonly FakeMessage[]): string {
  const comprobantes =
    estado === 'RECIBIDA' && mensajes.length === 0
      ? '<comprobantes/>'
      : `<comprobantes><comprobante><claveAcceso>${escapeXml(claveAcceso)}</claveAcceso>${messagesXml(mensajes)}</comprobante></comprobantes>`;
  return envelope(
    '<ns2:validarComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.recepcion"><RespuestaRecepcionComprobante>' +
      `<estado>${estado}</estado>${comprobantes}` +
      '</RespuestaRecepcionComprobante></ns2:validarComprobanteResponse>',
  );
}

export interface FakeAutorizacion {
  estado: 'AUTORIZADO' | 'NO AUTORIZADO' | 'EN PROCESO';
  numeroAutorizacion?: string;
  fechaAutorizacion?: string;
  /** PRUEBAS or PRODUCCIÓN. */
  ambiente?: string;
  comprobante?: string;
  mensajes: FakeMessage[];
}

/** `autorizacionComprobanteResponse`; an empty list is how the SRI says it does not know the key. */
export function autorizacionAnswer(claveAccesoConsultada: string, autorizaciones: readonly FakeAutorizacion[]): string {
  const list =
    autorizaciones.length === 0
      ? '<autorizaciones/>'
      : '<autorizaciones>' +
        autorizaciones
          .map(
            (a) =>
              `<autorizacion><estado>${a.estado}</estado>` +
              (a.numeroAutorizacion !== undefined ? `<numeroAutorizacion>${escapeXml(a.numeroAutorizacion)}</numeroAutorizacion>` : '') +
              (a.fechaAutorizacion !== undefined ? `<fechaAutorizacion>${escapeXml(a.fechaAutorizacion)}</fechaAutorizacion>` : '') +
              (a.ambiente !== undefined ? `<ambiente>${escapeXml(a.ambiente)}</ambiente>` : '') +
              (a.comprobante !== undefined ? `<comprobante>${cdata(a.comprobante)}</comprobante>` : '') +
              `${messagesXml(a.mensajes)}</autorizacion>`,
          )
          .join('') +
        '</autorizaciones>';
  return envelope(
    '<ns2:autorizacionComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.autorizacion"><RespuestaAutorizacionComprobante>' +
      `<claveAccesoConsultada>${escapeXml(claveAccesoConsultada)}</claveAccesoConsultada>` +
      `<numeroComprobantes>${autorizaciones.length}</numeroComprobantes>${list}` +
      '</RespuestaAutorizacionComprobante></ns2:autorizacionComprobanteResponse>',
  );
}

/** A SOAP 1.1 Fault, as CXF writes one (HTTP 500). */
export function faultAnswer(faultcode: string, faultstring: string): string {
  return envelope(`<soap:Fault><faultcode>${escapeXml(faultcode)}</faultcode><faultstring>${escapeXml(faultstring)}</faultstring></soap:Fault>`);
}

/** `2024-04-18T14:40:02-05:00`: Ecuador's time (UTC-5, no daylight saving), as the SRI writes it. */
export function ecuadorDateTime(at: Date): string {
  return `${new Date(at.getTime() - 5 * 3600_000).toISOString().slice(0, 19)}-05:00`;
}
