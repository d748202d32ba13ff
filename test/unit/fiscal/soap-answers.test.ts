/**
 * Reading the SRI's answers (WSDL types respuestaSolicitud / respuestaComprobante) as they are
 * written in the wild, and CONTRACT §15's failure_reason format.
 */
import { describe, expect, it } from 'vitest';
import { formatSriMessages, readAutorizacionAnswer, readRecepcionAnswer, type SriMessage } from '../../../core/fiscal/sri/sri-answers.js';
import { parseSoapAnswer, UnexpectedAnswer } from '../../../core/fiscal/sri/soap-envelope.js';

const envelope = (body: string) =>
  `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${body}</soap:Body></soap:Envelope>`;

function body(text: string) {
  const answer = parseSoapAnswer(envelope(text));
  if (answer.kind !== 'body') throw new Error('fault');
  return answer.element;
}

const recepcion = (inner: string) =>
  body(`<ns2:validarComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.recepcion"><RespuestaRecepcionComprobante>${inner}</RespuestaRecepcionComprobante></ns2:validarComprobanteResponse>`);
const autorizacion = (inner: string) =>
  body(`<ns2:autorizacionComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.autorizacion"><RespuestaAutorizacionComprobante>${inner}</RespuestaAutorizacionComprobante></ns2:autorizacionComprobanteResponse>`);

const KEY = '1804202401123456789000110010010000000051234567811';

describe('readRecepcionAnswer', () => {
  it('RECIBIDA with an empty comprobantes', () => {
    expect(readRecepcionAnswer(recepcion('<estado>RECIBIDA</estado><comprobantes/>'))).toEqual({ estado: 'RECIBIDA', mensajes: [] });
  });

  it('RECIBIDA with the key and no messages (also seen)', () => {
    expect(readRecepcionAnswer(recepcion(`<estado>RECIBIDA</estado><comprobantes><comprobante><claveAcceso>${KEY}</claveAcceso><mensajes/></comprobante></comprobantes>`))).toEqual({
      estado: 'RECIBIDA',
      claveAcceso: KEY,
      mensajes: [],
    });
  });

  it('DEVUELTA with several messages, informacionAdicional optional, texts as written', () => {
    const answer = readRecepcionAnswer(
      recepcion(
        '<estado>DEVUELTA</estado><comprobantes><comprobante><claveAcceso>N/A</claveAcceso><mensajes>' +
          '<mensaje><identificador>35</identificador><mensaje>ARCHIVO NO CUMPLE ESTRUCTURA XML</mensaje>' +
          '<informacionAdicional>Se encontró el siguiente error en la estructura del comprobante: cvc-pattern-valid: Value &apos;1&apos;</informacionAdicional><tipo>ERROR</tipo></mensaje>' +
          '<mensaje><identificador>43</identificador><mensaje>CLAVE ACCESO REGISTRADA</mensaje><tipo>ERROR</tipo></mensaje>' +
          '</mensajes></comprobante></comprobantes>',
      ),
    );
    expect(answer).toEqual({
      estado: 'DEVUELTA',
      claveAcceso: 'N/A',
      mensajes: [
        {
          identificador: '35',
          mensaje: 'ARCHIVO NO CUMPLE ESTRUCTURA XML',
          informacionAdicional: "Se encontró el siguiente error en la estructura del comprobante: cvc-pattern-valid: Value '1'",
          tipo: 'ERROR',
        },
        { identificador: '43', mensaje: 'CLAVE ACCESO REGISTRADA', tipo: 'ERROR' },
      ],
    });
  });

  it('accepts ref’d children namespace-qualified, as the schema strictly says', () => {
    const answer = readRecepcionAnswer(
      body(
        '<ns:validarComprobanteResponse xmlns:ns="http://ec.gob.sri.ws.recepcion"><RespuestaRecepcionComprobante><estado>DEVUELTA</estado>' +
          '<comprobantes><ns:comprobante><mensajes><ns:mensaje><identificador>70</identificador><mensaje>CLAVE DE ACCESO EN PROCESAMIENTO</mensaje></ns:mensaje></mensajes></ns:comprobante></comprobantes>' +
          '</RespuestaRecepcionComprobante></ns:validarComprobanteResponse>',
      ),
    );
    expect(answer.mensajes).toEqual([{ identificador: '70', mensaje: 'CLAVE DE ACCESO EN PROCESAMIENTO', tipo: '' }]);
  });

  it('refuses an unknown or missing state, a missing answer, another operation', () => {
    expect(() => readRecepcionAnswer(recepcion('<estado>ACEPTADA</estado>'))).toThrow(/estado de recepción desconocido «ACEPTADA»/);
    expect(() => readRecepcionAnswer(recepcion(''))).toThrow(UnexpectedAnswer);
    expect(() => readRecepcionAnswer(body('<ns2:validarComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.recepcion"/>'))).toThrow(/falta RespuestaRecepcionComprobante/);
    expect(() => readRecepcionAnswer(body('<validarComprobanteResponse><RespuestaRecepcionComprobante><estado>RECIBIDA</estado></RespuestaRecepcionComprobante></validarComprobanteResponse>'))).toThrow(
      /se esperaba \{http:\/\/ec\.gob\.sri\.ws\.recepcion\}validarComprobanteResponse/,
    );
  });
});

describe('readAutorizacionAnswer', () => {
  const signed = `<?xml version="1.0" encoding="UTF-8"?><factura id="comprobante" version="1.1.0"><infoTributaria><claveAcceso>${KEY}</claveAcceso></infoTributaria>\n  <x>a &amp; b</x></factura>`;

  it('AUTORIZADO with the comprobante in CDATA, kept character for character', () => {
    const answer = readAutorizacionAnswer(
      autorizacion(
        `<claveAccesoConsultada>${KEY}</claveAccesoConsultada><numeroComprobantes>1</numeroComprobantes><autorizaciones><autorizacion>` +
          `<estado>AUTORIZADO</estado><numeroAutorizacion>${KEY}</numeroAutorizacion><fechaAutorizacion>2024-04-18T14:40:02-05:00</fechaAutorizacion>` +
          `<ambiente>PRUEBAS</ambiente><comprobante><![CDATA[${signed}]]></comprobante><mensajes/></autorizacion></autorizaciones>`,
      ),
    );
    expect(answer).toEqual({
      claveAccesoConsultada: KEY,
      autorizaciones: [
        { estado: 'AUTORIZADO', numeroAutorizacion: KEY, fechaAutorizacion: '2024-04-18T14:40:02-05:00', ambiente: 'PRUEBAS', comprobante: signed, mensajes: [] },
      ],
    });
  });

  it('the comprobante escaped as text instead of CDATA reads the same', () => {
    const escaped = signed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const answer = readAutorizacionAnswer(autorizacion(`<autorizaciones><autorizacion><estado>AUTORIZADO</estado><comprobante>${escaped}</comprobante></autorizacion></autorizaciones>`));
    expect(answer.autorizaciones[0]?.comprobante).toBe(signed);
  });

  it('a CDATA split around "]]>" is joined back', () => {
    const answer = readAutorizacionAnswer(
      autorizacion('<autorizaciones><autorizacion><estado>AUTORIZADO</estado><comprobante><![CDATA[a]]]]><![CDATA[>b]]></comprobante></autorizacion></autorizaciones>'),
    );
    expect(answer.autorizaciones[0]?.comprobante).toBe('a]]>b');
  });

  it('NO AUTORIZADO and EN PROCESO; several autorizaciones in order; ambiente PRODUCCIÓN', () => {
    const answer = readAutorizacionAnswer(
      autorizacion(
        '<autorizaciones>' +
          '<autorizacion><estado>EN PROCESO</estado></autorizacion>' +
          '<autorizacion><estado>NO AUTORIZADO</estado><fechaAutorizacion>2019-07-15T11:04:34-05:00</fechaAutorizacion><ambiente>PRODUCCIÓN</ambiente>' +
          '<mensajes><mensaje><identificador>39</identificador><mensaje>FIRMA INVALIDA</mensaje><informacionAdicional>La validacion de la cadena de confianza ha fallado</informacionAdicional><tipo>ERROR</tipo></mensaje></mensajes></autorizacion>' +
          '</autorizaciones>',
      ),
    );
    expect(answer.autorizaciones).toEqual([
      { estado: 'EN PROCESO', mensajes: [] },
      {
        estado: 'NO AUTORIZADO',
        fechaAutorizacion: '2019-07-15T11:04:34-05:00',
        ambiente: 'PRODUCCIÓN',
        mensajes: [{ identificador: '39', mensaje: 'FIRMA INVALIDA', informacionAdicional: 'La validacion de la cadena de confianza ha fallado', tipo: 'ERROR' }],
      },
    ]);
  });

  it('no autorizaciones: the SRI does not know the key', () => {
    expect(readAutorizacionAnswer(autorizacion(`<claveAccesoConsultada>${KEY}</claveAccesoConsultada><numeroComprobantes>0</numeroComprobantes><autorizaciones/>`))).toEqual({
      claveAccesoConsultada: KEY,
      autorizaciones: [],
    });
    expect(readAutorizacionAnswer(autorizacion(''))).toEqual({ autorizaciones: [] });
  });

  it('refuses an unknown state', () => {
    expect(() => readAutorizacionAnswer(autorizacion('<autorizaciones><autorizacion><estado>RECHAZADA</estado></autorizacion></autorizaciones>'))).toThrow(
      /estado de autorización desconocido «RECHAZADA»/,
    );
    expect(() => readAutorizacionAnswer(autorizacion('<autorizaciones><autorizacion/></autorizaciones>'))).toThrow(UnexpectedAnswer);
  });
});

describe('formatSriMessages (CONTRACT §15 failure_reason)', () => {
  const m = (identificador: string, mensaje: string, informacionAdicional?: string): SriMessage => ({
    identificador,
    mensaje,
    ...(informacionAdicional !== undefined ? { informacionAdicional } : {}),
    tipo: 'ERROR',
  });

  it('`identificador: mensaje (informacionAdicional)` joined by `; `, the SRI’s Spanish untouched', () => {
    expect(
      formatSriMessages([
        m('35', 'ARCHIVO NO CUMPLE ESTRUCTURA XML', 'Se encontró el siguiente error en la estructura del comprobante: cvc-minLength-valid'),
        m('65', 'FECHA EMISIÓN EXTEMPORANEA'),
      ]),
    ).toBe('35: ARCHIVO NO CUMPLE ESTRUCTURA XML (Se encontró el siguiente error en la estructura del comprobante: cvc-minLength-valid); 65: FECHA EMISIÓN EXTEMPORANEA');
  });

  it('one message, no messages, a message without identificador', () => {
    expect(formatSriMessages([m('43', 'CLAVE ACCESO REGISTRADA')])).toBe('43: CLAVE ACCESO REGISTRADA');
    expect(formatSriMessages([])).toBe('');
    expect(formatSriMessages([m('', 'Error interno')])).toBe('Error interno');
  });
});
