/**
 * The SRI client against the fake SRI (a real HTTP/HTTPS server on a free port that checks
 * what it receives with xmllint and xmlsec1), for every answer the SRI gives and every way
 * the network and the SRI can fail.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createSriClient,
  formatSriMessages,
  SriFault,
  SriHttpError,
  SriRequestError,
  SriUnreachable,
  type SriClient,
} from '../../../core/fiscal/sri/soap-client.js';
import { withCheckDigit } from '../../../core/documents/access-key.js';
import { readSample, rekey, signedComprobante, sriMessages, startFakeSri, type FakeSri, type TestSigningKey } from '../../helpers/fake-sri/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let key: TestSigningKey;
let sri: FakeSri;
let client: SriClient;
let dir: string;
let secuencial = 100;
const fakes: FakeSri[] = [];
const clients: SriClient[] = [];

/** A fresh signed invoice the fake accepts (its own secuencial and access key). */
async function invoice(changes: Parameters<typeof signedComprobante>[1] = {}) {
  return signedComprobante(key, { secuencial: String(++secuencial).padStart(9, '0'), ...changes });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

function xmlsecVerify(file: string, root: string): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      'xmlsec1',
      [
        '--verify',
        '--enabled-key-data',
        'x509',
        '--enabled-reference-uris',
        'same-doc',
        '--insecure',
        '--id-attr:id',
        root,
        '--id-attr:Id',
        'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
        '--id-attr:Id',
        'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
        file,
      ],
      (err) => resolve(err ? 1 : 0),
    );
  });
}

beforeAll(async () => {
  pki = await createTestPki();
  key = { keyPem: pki.leaf.privateKeyPem, certPem: pki.leaf.certificatePem };
  sri = await startFakeSri();
  fakes.push(sri);
  client = createSriClient({ timeoutMs: 10_000 });
  clients.push(client);
  dir = await mkdtemp(join(tmpdir(), 'sello-sri-client-'));
});

afterEach(() => {
  sri.configure({ processingPolls: 0, lateChecksAt: 'reception' });
  sri.setPolicy('recepcion', { kind: 'normal' });
  sri.setPolicy('autorizacion', { kind: 'normal' });
});

afterAll(async () => {
  for (const c of clients) c.close();
  for (const f of fakes) await f.close();
  await pki?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('answers', () => {
  it('RECIBIDA, then AUTORIZADO with the exact signed comprobante, the key as number and the test-environment advertencia', async () => {
    const { xml, bytes, accessKey } = await invoice();
    const recepcion = await client.validarComprobante(sri.baseUrl, bytes);
    expect(recepcion).toEqual({ estado: 'RECIBIDA', mensajes: [] });

    // What travelled: SOAP 1.1 with soapAction "" and the exact bytes in base64.
    const call = sri.calls.at(-1)!;
    expect(call.headers['soapaction']).toBe('""');
    expect(call.headers['content-type']).toMatch(/^text\/xml/);
    expect(call.xml).toBe(xml);
    expect(sri.documents.get(accessKey)?.bytes.equals(bytes)).toBe(true);

    const { autorizaciones, claveAccesoConsultada } = await client.autorizacionComprobante(sri.baseUrl, accessKey);
    expect(claveAccesoConsultada).toBe(accessKey);
    expect(autorizaciones).toHaveLength(1);
    const [a] = autorizaciones;
    expect(a).toMatchObject({ estado: 'AUTORIZADO', numeroAutorizacion: accessKey, ambiente: 'PRUEBAS' });
    expect(a!.fechaAutorizacion).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-05:00$/);
    expect(a!.mensajes).toEqual([{ identificador: '60', mensaje: 'ESTE PROCESO FUE REALIZADO EN EL AMBIENTE DE PRUEBAS', tipo: 'ADVERTENCIA' }]);
    // CDATA keeps every character; XML parsing only normalises line ends (the signature survives that).
    expect(a!.comprobante).toBe(xml.replace(/\r\n?/g, '\n'));
    const file = join(dir, 'autorizado.xml');
    await writeFile(file, a!.comprobante!);
    expect(await xmlsecVerify(file, 'factura')).toBe(0);
  });

  it('a key received twice: DEVUELTA 43, formatted as CONTRACT §15 says; the SRI kept one document', async () => {
    const { bytes, accessKey } = await invoice();
    await client.validarComprobante(sri.baseUrl, bytes);
    await client.autorizacionComprobante(sri.baseUrl, accessKey);
    const again = await client.validarComprobante(sri.baseUrl, bytes);
    expect(again).toEqual({
      estado: 'DEVUELTA',
      claveAcceso: accessKey,
      mensajes: [{ identificador: '43', mensaje: 'CLAVE ACCESO REGISTRADA', tipo: 'ERROR' }],
    });
    expect(formatSriMessages(again.mensajes)).toBe('43: CLAVE ACCESO REGISTRADA');
    expect(sri.receptionsOf(accessKey)).toBe(2);
    expect(sri.documents.get(accessKey)?.receptions).toBe(1);
  });

  it('EN PROCESO for N polls, 70 when resent meanwhile, then AUTORIZADO', async () => {
    sri.configure({ processingPolls: 2 });
    const { bytes, accessKey } = await invoice();
    expect((await client.validarComprobante(sri.baseUrl, bytes)).estado).toBe('RECIBIDA');
    const resent = await client.validarComprobante(sri.baseUrl, bytes);
    expect(formatSriMessages(resent.mensajes)).toBe('70: CLAVE DE ACCESO EN PROCESAMIENTO');
    for (let i = 0; i < 2; i++) {
      const poll = await client.autorizacionComprobante(sri.baseUrl, accessKey);
      expect(poll.autorizaciones).toEqual([{ estado: 'EN PROCESO', mensajes: [] }]);
    }
    const done = await client.autorizacionComprobante(sri.baseUrl, accessKey);
    expect(done.autorizaciones[0]?.estado).toBe('AUTORIZADO');
  });

  it('another key with the same issuer, series and secuencial: DEVUELTA 45; the authorization service does not know that key', async () => {
    const first = await invoice({ codigoNumerico: '11111111' });
    const same = await signedComprobante(key, { secuencial: String(secuencial).padStart(9, '0'), codigoNumerico: '22222222' });
    expect(same.accessKey).not.toBe(first.accessKey);
    await client.validarComprobante(sri.baseUrl, first.bytes);
    const answer = await client.validarComprobante(sri.baseUrl, same.bytes);
    expect(answer.estado).toBe('DEVUELTA');
    expect(formatSriMessages(answer.mensajes)).toBe('45: ERROR SECUENCIAL REGISTRADO');
    expect(await client.autorizacionComprobante(sri.baseUrl, same.accessKey)).toEqual({ claveAccesoConsultada: same.accessKey, autorizaciones: [] });
  });

  it('DEVUELTA with several messages keeps the SRI’s words and formats them `id: mensaje (info)` joined by `; `', async () => {
    const { bytes } = await invoice();
    sri.enqueue('recepcion', {
      kind: 'devuelta',
      mensajes: [sriMessages.fechaExtemporanea(), { identificador: '26', mensaje: 'TAMAÑO MÁXIMO SUPERADO', tipo: 'ERROR' }],
    });
    const answer = await client.validarComprobante(sri.baseUrl, bytes);
    expect(answer.estado).toBe('DEVUELTA');
    expect(formatSriMessages(answer.mensajes)).toBe(
      '65: FECHA EMISIÓN EXTEMPORANEA (La fecha de emisión está fuera del rango de tolerancia [129600 minutos], o es mayor a la fecha del servidor); 26: TAMAÑO MÁXIMO SUPERADO',
    );
  });

  it('NO AUTORIZADO with its messages; sent again and authorized, both verdicts are listed, newest first', async () => {
    const { bytes, accessKey } = await invoice();
    await client.validarComprobante(sri.baseUrl, bytes);
    sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [{ identificador: '52', mensaje: 'ERROR EN DIFERENCIAS', informacionAdicional: 'Existe error en los cálculos', tipo: 'ERROR' }] });
    const { autorizaciones } = await client.autorizacionComprobante(sri.baseUrl, accessKey);
    expect(autorizaciones).toHaveLength(1);
    expect(autorizaciones[0]).toMatchObject({ estado: 'NO AUTORIZADO', ambiente: 'PRUEBAS' });
    expect(autorizaciones[0]!.numeroAutorizacion).toBeUndefined();
    expect(formatSriMessages(autorizaciones[0]!.mensajes)).toBe(
      '52: ERROR EN DIFERENCIAS (Existe error en los cálculos); 60: ESTE PROCESO FUE REALIZADO EN EL AMBIENTE DE PRUEBAS',
    );
    // A comprobante not authorized may be corrected and sent again with the same key.
    expect((await client.validarComprobante(sri.baseUrl, bytes)).estado).toBe('RECIBIDA');
    const later = await client.autorizacionComprobante(sri.baseUrl, accessKey);
    expect(later.autorizaciones.map((a) => a.estado)).toEqual(['AUTORIZADO', 'NO AUTORIZADO']);
  });

  it('an unknown key: no autorizaciones', async () => {
    const { accessKey } = await invoice();
    expect(await client.autorizacionComprobante(sri.baseUrl, accessKey)).toEqual({ claveAccesoConsultada: accessKey, autorizaciones: [] });
  });
});

describe('what the fake SRI refuses', () => {
  it('an XML that fails its XSD: DEVUELTA 35 with the schema error', async () => {
    const { xml } = rekey(readSample('invoice', 'unsigned'));
    const broken = xml.replace('<totalSinImpuestos>', '<campoInventado>1</campoInventado><totalSinImpuestos>');
    const answer = await client.validarComprobante(sri.baseUrl, Buffer.from(broken));
    expect(answer.estado).toBe('DEVUELTA');
    expect(answer.mensajes).toHaveLength(1);
    expect(answer.mensajes[0]).toMatchObject({ identificador: '35', mensaje: 'ARCHIVO NO CUMPLE ESTRUCTURA XML', tipo: 'ERROR' });
    expect(answer.mensajes[0]!.informacionAdicional).toMatch(/^Se encontró el siguiente error en la estructura del comprobante: .*campoInventado/);
  });

  it('XML that is not well formed, or not base64: DEVUELTA 35', async () => {
    const answer = await client.validarComprobante(sri.baseUrl, Buffer.from('<factura id="comprobante" version="1.1.0"><infoTributaria>'));
    expect(answer).toMatchObject({ estado: 'DEVUELTA', claveAcceso: 'N/A', mensajes: [{ identificador: '35' }] });
  });

  it('the sample as it is: its access key has a wrong check digit (DEVUELTA 35)', async () => {
    const sample = readSample('invoice');
    const answer = await client.validarComprobante(sri.baseUrl, Buffer.from(sample));
    expect(answer.estado).toBe('DEVUELTA');
    expect(answer.mensajes[0]!.identificador).toBe('35');
    expect(answer.mensajes[0]!.informacionAdicional).toMatch(/dígito verificador/);
  });

  it('a key whose components differ from the XML (the withholding sample carries codDoc 01): 58', async () => {
    const keyInSample = /<claveAcceso>(\d{49})</.exec(readSample('withholding-certificate'))![1]!;
    const validDigitKey = withCheckDigit(keyInSample.slice(0, 48));
    expect(validDigitKey.slice(8, 10)).toBe('01');
    const signed = await signedComprobante(key, { sample: 'withholding-certificate', claveAcceso: validDigitKey });
    expect(signed.xml).toContain('<codDoc>07</codDoc>');
    const answer = await client.validarComprobante(sri.baseUrl, signed.bytes);
    expect(answer.estado).toBe('DEVUELTA');
    expect(formatSriMessages(answer.mensajes)).toMatch(/^58: ERROR EN LA ESTRUCTURA DE CLAVE ACCESO \(.*tipo de comprobante.*\)$/);
  });

  it('a broken signature (one byte of the signed content changed): 39 FIRMA INVALIDA', async () => {
    const { xml } = await invoice();
    const tampered = xml.replace('<razonSocialComprador>Don Venom<', '<razonSocialComprador>Don Venon<');
    expect(tampered).not.toBe(xml);
    const answer = await client.validarComprobante(sri.baseUrl, Buffer.from(tampered));
    expect(answer.estado).toBe('DEVUELTA');
    expect(answer.mensajes[0]).toMatchObject({ identificador: '39', mensaje: 'FIRMA INVALIDA' });
  });

  it('an unsigned comprobante: 39', async () => {
    const { xml } = rekey(readSample('invoice', 'unsigned'));
    const answer = await client.validarComprobante(sri.baseUrl, Buffer.from(xml));
    expect(answer.mensajes[0]).toMatchObject({ identificador: '39', informacionAdicional: 'El comprobante no está firmado.' });
  });

  it('as the real SRI: signature problems reported at authorization (RECIBIDA, then NO AUTORIZADO 39)', async () => {
    sri.configure({ lateChecksAt: 'authorization' });
    const { xml, accessKey } = await invoice();
    const tampered = xml.replace('<razonSocialComprador>Don Venom<', '<razonSocialComprador>Don Venon<');
    expect((await client.validarComprobante(sri.baseUrl, Buffer.from(tampered))).estado).toBe('RECIBIDA');
    const { autorizaciones } = await client.autorizacionComprobante(sri.baseUrl, accessKey);
    expect(autorizaciones[0]?.estado).toBe('NO AUTORIZADO');
    expect(autorizaciones[0]?.mensajes[0]).toMatchObject({ identificador: '39', mensaje: 'FIRMA INVALIDA' });
    expect(autorizaciones[0]?.comprobante).toBe(tampered.replace(/\r\n?/g, '\n'));
  });

  it('with its checks off (benchmarks) it takes anything readable, and still remembers it', async () => {
    const lenient = await startFakeSri({ checks: { xsd: false, accessKey: false, signature: false } });
    fakes.push(lenient);
    const sample = readSample('invoice');
    const keyInSample = /<claveAcceso>(\d{49})</.exec(sample)![1]!;
    expect((await client.validarComprobante(lenient.baseUrl, Buffer.from(sample))).estado).toBe('RECIBIDA');
    expect((await client.autorizacionComprobante(lenient.baseUrl, keyInSample)).autorizaciones[0]?.estado).toBe('AUTORIZADO');
    expect(formatSriMessages((await client.validarComprobante(lenient.baseUrl, Buffer.from(sample))).mensajes)).toBe('43: CLAVE ACCESO REGISTRADA');
  });

  it('every signed sample re-keyed and re-signed is accepted (credit note, debit note, withholding)', async () => {
    for (const sample of ['credit-note', 'debit-note', 'withholding-certificate'] as const) {
      const { bytes, accessKey } = await invoice({ sample });
      const answer = await client.validarComprobante(sri.baseUrl, bytes);
      expect({ sample, ...answer }).toEqual({ sample, estado: 'RECIBIDA', mensajes: [] });
      expect((await client.autorizacionComprobante(sri.baseUrl, accessKey)).autorizaciones[0]?.estado).toBe('AUTORIZADO');
    }
  });
});

describe('transport failures are SriUnreachable with a clear Spanish reason', () => {
  it('down: connection refused; up again on the same port: answered', async () => {
    const { bytes } = await invoice();
    await sri.down();
    const err = await failure(client.validarComprobante(sri.baseUrl, bytes));
    expect(err).toBeInstanceOf(SriUnreachable);
    expect(err).toMatchObject({ reason: 'refused', retryable: true, code: 'sri_unreachable' });
    expect(err.message).toMatch(/^Conexión rechazada por 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    await sri.up();
    expect((await client.validarComprobante(sri.baseUrl, bytes)).estado).toBe('RECIBIDA');
  });

  it('down for a while, by itself back', async () => {
    const { accessKey } = await invoice();
    await sri.down({ forMs: 300 });
    expect(await failure(client.autorizacionComprobante(sri.baseUrl, accessKey))).toMatchObject({ reason: 'refused' });
    await new Promise((r) => setTimeout(r, 400));
    expect(sri.isUp()).toBe(true);
    expect((await client.autorizacionComprobante(sri.baseUrl, accessKey)).autorizaciones).toEqual([]);
  });

  it('a connection cut without an answer', async () => {
    sri.enqueue('autorizacion', { kind: 'reset' });
    const err = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(err).toMatchObject({ reason: 'reset' });
    expect(err.message).toMatch(/cortó la conexión/);
  });

  it('an answer lost after the SRI kept the document: the resend gets 43 (ask the authorization, never renumber)', async () => {
    const { bytes, accessKey } = await invoice();
    sri.enqueue('recepcion', { kind: 'lost' });
    expect(await failure(client.validarComprobante(sri.baseUrl, bytes))).toMatchObject({ reason: 'reset' });
    await client.autorizacionComprobante(sri.baseUrl, accessKey);
    const again = await client.validarComprobante(sri.baseUrl, bytes);
    expect(again.mensajes.map((m) => m.identificador)).toEqual(['43']);
  });

  it('slow beyond the timeout', async () => {
    const quick = createSriClient({ timeoutMs: 300 });
    clients.push(quick);
    const { bytes } = await invoice();
    sri.enqueue('recepcion', { kind: 'slow', delayMs: 1_500 });
    const err = await failure(quick.validarComprobante(sri.baseUrl, bytes));
    expect(err).toMatchObject({ reason: 'timeout', retryable: true });
    expect(err.message).toMatch(/no respondió completo en 0\.3 s \(tiempo de espera agotado\)/);
  });

  it('an answer that begins and never ends: the timeout still says timeout', async () => {
    const quick = createSriClient({ timeoutMs: 400 });
    clients.push(quick);
    sri.enqueue('autorizacion', { kind: 'trickle', intervalMs: 50 });
    const err = await failure(quick.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(err).toMatchObject({ reason: 'timeout' });
  });

  it('slow within the timeout is just slow', async () => {
    const { bytes } = await invoice();
    sri.enqueue('recepcion', { kind: 'slow', delayMs: 200 });
    expect((await client.validarComprobante(sri.baseUrl, bytes)).estado).toBe('RECIBIDA');
  });

  it('a TLS handshake that never completes: connect timeout', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    const impatient = createSriClient({ connectTimeoutMs: 200, timeoutMs: 5_000 });
    clients.push(impatient);
    try {
      const err = await failure(impatient.autorizacionComprobante(`https://127.0.0.1:${port}/ws`, '1'.repeat(49)));
      expect(err).toMatchObject({ reason: 'connect_timeout' });
      expect(err.message).toMatch(/No se pudo conectar con el SRI \(127\.0\.0\.1:\d+\) en 0\.2 s/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('HTTP 500 and 503', async () => {
    sri.enqueue('autorizacion', { kind: 'status', status: 500 }, { kind: 'status', status: 503, body: '<html>Service Unavailable</html>', contentType: 'text/html' });
    for (const status of [500, 503]) {
      const err = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
      expect(err).toMatchObject({ reason: 'http_5xx', status, retryable: true });
      expect(err.message).toContain(`respondió HTTP ${status}`);
    }
  });

  it('garbage: an HTML maintenance page, another XML, bytes that are not UTF-8', async () => {
    sri.enqueue(
      'recepcion',
      { kind: 'garbage' },
      { kind: 'raw', body: '<?xml version="1.0"?><respuesta>ok</respuesta>' },
      { kind: 'raw', body: Buffer.concat([Buffer.from('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>'), Buffer.from([0xc3, 0x28])]) },
      { kind: 'raw', body: '' },
    );
    const { bytes } = await invoice();
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++) {
      const err = await failure(client.validarComprobante(sri.baseUrl, bytes));
      expect(err).toBeInstanceOf(SriUnreachable);
      expect(err).toMatchObject({ reason: 'garbage', status: 200 });
      reasons.push(err.message);
    }
    expect(reasons[0]).toMatch(/no es el SOAP esperado: no es un sobre SOAP 1\.1 \(raíz «html»\)/);
    expect(reasons[1]).toMatch(/raíz «respuesta»/);
    expect(reasons[2]).toMatch(/no es texto UTF-8 válido/);
    expect(reasons[3]).toMatch(/no es XML bien formado/);
  });

  it('a byte-order mark before a good answer is fine', async () => {
    sri.enqueue('recepcion', {
      kind: 'raw',
      body:
        '\uFEFF<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ns2:validarComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.recepcion">' +
        '<RespuestaRecepcionComprobante><estado>RECIBIDA</estado><comprobantes/></RespuestaRecepcionComprobante></ns2:validarComprobanteResponse></soap:Body></soap:Envelope>',
    });
    const { bytes } = await invoice();
    expect(await client.validarComprobante(sri.baseUrl, bytes)).toEqual({ estado: 'RECIBIDA', mensajes: [] });
  });

  it('a well-formed SOAP answer of the wrong shape or with an unknown state is garbage too', async () => {
    const env = (inner: string) => `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
    sri.enqueue(
      'autorizacion',
      { kind: 'raw', body: env('<ns2:validarComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.recepcion"/>') },
      {
        kind: 'raw',
        body: env(
          '<ns2:autorizacionComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.autorizacion"><RespuestaAutorizacionComprobante><autorizaciones><autorizacion><estado>QUIZÁS</estado></autorizacion></autorizaciones></RespuestaAutorizacionComprobante></ns2:autorizacionComprobanteResponse>',
        ),
      },
    );
    const wrong = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(wrong).toMatchObject({ reason: 'garbage' });
    expect(wrong.message).toMatch(/se esperaba \{http:\/\/ec\.gob\.sri\.ws\.autorizacion\}autorizacionComprobanteResponse/);
    const unknown = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(unknown.message).toMatch(/estado de autorización desconocido «QUIZÁS»/);
  });

  it('an answer with a DOCTYPE is refused, entities never expanded', async () => {
    sri.enqueue('autorizacion', {
      kind: 'raw',
      body:
        '<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
        '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>&b;</soap:Body></soap:Envelope>',
    });
    const err = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(err).toMatchObject({ reason: 'garbage' });
    expect(err.message).toMatch(/trae una declaración DOCTYPE, que se rechaza/);
  });

  it('a hostile answer within the cap (2 MiB of nested tags) is read on its own thread: the event loop keeps turning, and it is garbage', async () => {
    const head = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>';
    const depth = Math.floor((2 * 1024 * 1024 - 200) / 7);
    sri.enqueue('autorizacion', { kind: 'raw', body: `${head}${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</soap:Body></soap:Envelope>` });
    // The slowest turn of this thread's event loop while the answer is read (about 4 s of DOM building on the main thread before).
    let worstGapMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstGapMs = Math.max(worstGapMs, now - last);
      last = now;
    }, 5);
    const err = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    clearInterval(ticker);
    expect(err).toMatchObject({ reason: 'garbage', retryable: true });
    expect(worstGapMs).toBeLessThan(500);
  });

  it('an answer the thread cannot read within its deadline is garbage, and the next answer is read by a new thread', async () => {
    const { createAnswerThread } = await import('../../../core/fiscal/sri/answer-thread/index.js');
    const answers = createAnswerThread({ deadlineMs: 50 });
    const slow = createSriClient({ readAnswer: answers.read });
    clients.push(slow);
    const head = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>';
    sri.enqueue('autorizacion', { kind: 'raw', body: `${head}${'<a/>'.repeat(400_000)}</soap:Body></soap:Envelope>` });
    const err = await failure(slow.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(err).toMatchObject({ reason: 'garbage', retryable: true });
    expect(err.message).toMatch(/no se pudo leer \(el hilo que lee las respuestas del SRI no terminó en 0\.05 s\)/);
    const { bytes } = await invoice();
    expect((await slow.validarComprobante(sri.baseUrl, bytes)).estado).toBe('RECIBIDA');
    await answers.close();
  });

  it('an oversized answer is cut at the cap, not read to its end', async () => {
    const capped = createSriClient({ maxResponseBytes: 1024 * 1024 });
    clients.push(capped);
    const { bytes } = await invoice();
    sri.enqueue('recepcion', { kind: 'oversized', bytes: 64 * 1024 * 1024 });
    const err = await failure(capped.validarComprobante(sri.baseUrl, bytes));
    expect(err).toMatchObject({ reason: 'too_large' });
    expect(err.message).toMatch(/supera 1 MB; se cortó la conexión/);
    await sri.waitFor((calls) => calls.at(-1)?.bytesSent !== undefined);
    await new Promise((r) => setTimeout(r, 100));
    expect(sri.calls.at(-1)!.bytesSent).toBeLessThan(32 * 1024 * 1024);
  });

  it('abortAll() ends calls the SRI never answers, or never finishes answering', async () => {
    sri.enqueue('autorizacion', { kind: 'hang' }, { kind: 'trickle', intervalMs: 20 });
    const hanging = failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    await sri.waitFor((calls) => calls.at(-1)?.behaviour === 'hang');
    const trickling = failure(client.autorizacionComprobante(sri.baseUrl, '2'.repeat(49)));
    await sri.waitFor((calls) => (calls.at(-1)?.bytesSent ?? 0) > 2);
    client.abortAll();
    expect(await hanging).toMatchObject({ reason: 'interrupted' });
    const err = await trickling;
    expect(err).toMatchObject({ reason: 'interrupted' });
    expect(err.message).toBe('Consulta al SRI interrumpida porque Sello se detuvo; se reintentará.');
  });
});

describe('faults, HTTP errors and bad calls are told apart', () => {
  it('a SOAP Fault: soap:Server is retryable, soap:Client is not', async () => {
    sri.enqueue(
      'autorizacion',
      { kind: 'fault', faultstring: 'javax.persistence.PersistenceException: could not execute statement' },
      { kind: 'fault', faultcode: 'soap:Client', faultstring: 'Unmarshalling Error' },
    );
    const server = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(server).toBeInstanceOf(SriFault);
    expect(server).toMatchObject({ code: 'sri_fault', faultcode: 'soap:Server', status: 500, retryable: true });
    expect(server.message).toMatch(/SOAP Fault soap:Server: javax\.persistence/);
    const clientFault = await failure(client.autorizacionComprobante(sri.baseUrl, '1'.repeat(49)));
    expect(clientFault).toMatchObject({ faultcode: 'soap:Client', retryable: false });
  });

  it('HTTP 4xx and 3xx: SriHttpError', async () => {
    sri.enqueue('recepcion', { kind: 'status', status: 404 }, { kind: 'status', status: 429 }, { kind: 'status', status: 302 });
    const { bytes } = await invoice();
    const notFound = await failure(client.validarComprobante(sri.baseUrl, bytes));
    expect(notFound).toBeInstanceOf(SriHttpError);
    expect(notFound).toMatchObject({ status: 404, retryable: false });
    expect(await failure(client.validarComprobante(sri.baseUrl, bytes))).toMatchObject({ status: 429, retryable: true });
    expect(await failure(client.validarComprobante(sri.baseUrl, bytes))).toMatchObject({ status: 302 });
  });

  it('a wrong service path answers 404 (the fake routes like the SRI)', async () => {
    const err = await failure(client.autorizacionComprobante(`${sri.baseUrl}/otra-cosa`, '1'.repeat(49)));
    expect(err).toMatchObject({ status: 404 });
  });

  it('bad calls fail before anything is sent', async () => {
    const before = sri.calls.length;
    expect(await failure(client.autorizacionComprobante(sri.baseUrl, '123'))).toBeInstanceOf(SriRequestError);
    expect(await failure(client.validarComprobante(sri.baseUrl, new Uint8Array()))).toMatchObject({ code: 'sri_bad_request', retryable: false });
    expect(await failure(client.validarComprobante('http://sri.example.ec/ws', Buffer.from('<a/>')))).toBeInstanceOf(SriRequestError);
    expect(sri.calls.length).toBe(before);
  });

  it('the fake serves its WSDL with its own address', async () => {
    const res = await fetch(`${sri.baseUrl}/RecepcionComprobantesOffline?wsdl`);
    expect(await res.text()).toContain(`<soap:address location="${sri.baseUrl}/RecepcionComprobantesOffline"/>`);
  });
});

describe('HTTPS with extra CAs, as webhook deliveries', () => {
  let secure: FakeSri;
  beforeAll(async () => {
    secure = await startFakeSri({ pki });
    fakes.push(secure);
  });

  it('trusts the CA given as SELLO_CA_FILE', async () => {
    const trusting = createSriClient({ caFile: pki.ca.certificatePath });
    clients.push(trusting);
    expect(secure.baseUrl).toMatch(/^https:/);
    const { bytes, accessKey } = await invoice();
    expect((await trusting.validarComprobante(secure.baseUrl, bytes)).estado).toBe('RECIBIDA');
    expect((await trusting.autorizacionComprobante(secure.baseUrl, accessKey)).autorizaciones[0]?.estado).toBe('AUTORIZADO');
  });

  it('without that CA: a TLS failure that says where to configure it', async () => {
    const err = await failure(client.autorizacionComprobante(secure.baseUrl, '1'.repeat(49)));
    expect(err).toMatchObject({ reason: 'tls', retryable: true });
    expect(err.message).toMatch(/no es de una autoridad de confianza .*SELLO_CA_FILE o NODE_EXTRA_CA_CERTS/);
  });
});
