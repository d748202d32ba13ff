/**
 * A fake SRI for the tests: a real HTTP (or HTTPS, with a certificate of the test CA) server on a
 * free port implementing `RecepcionComprobantesOffline.validarComprobante` and
 * `AutorizacionComprobantesOffline.autorizacionComprobante` as their WSDLs
 * (test/fixtures/sri/wsdl) say, answering SOAP shaped like the real SRI's.
 *
 * By default it behaves like the SRI: it decodes the base64, validates the XML against the XSD of
 * its root and version (xmllint), checks the access key (49 digits, modulo 11, components equal
 * to the XML's fields) and the XAdES signature (xmlsec1); remembers what it received by access
 * key; answers DEVUELTA 43 to a key received twice (70 while it is still EN PROCESO, 45 to another
 * key with the same issuer, series and secuencial); and authorizes what it received with
 * numeroAutorizacion = the key and the exact signed XML in CDATA.
 *
 * Each test scripts it: `enqueue(service, ...behaviours)` for the next calls, `setPolicy` for
 * all later ones, `down()`/`up()` to stop and restart listening on the same port, and reads
 * `calls` (every request, with what was answered), `stats()` and `documents`.
 *
 * @example
 *   const sri = await startFakeSri();                       // HTTP on 127.0.0.1
 *   const sri = await startFakeSri({ pki });                // HTTPS; client caFile: pki.ca.certificatePath
 *   sri.enqueue('autorizacion', { kind: 'en-proceso' }, { kind: 'en-proceso' });
 *   sri.enqueue('recepcion', { kind: 'status', status: 500 }, { kind: 'slow', delayMs: 2000 });
 *   sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.fechaExtemporanea()] });
 *   await sri.down({ forMs: 500 });                         // connection refused for half a second
 *   // point Sello at sri.baseUrl (SELLO_SRI_TEST_URL)
 *   expect(sri.receptionsOf(accessKey)).toBe(1);
 *   await sri.close();
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser, type Element } from '@xmldom/xmldom';
import type { TestPki } from '../test-ca.js';
import {
  autorizacionAnswer,
  ecuadorDateTime,
  faultAnswer,
  recepcionAnswer,
  sriMessages,
  type FakeAutorizacion,
  type FakeMessage,
} from './answers.js';
import { inspectComprobante, type ComprobanteFacts, type FakeChecks } from './checks.js';

export { sriMessages, type FakeAutorizacion, type FakeMessage } from './answers.js';
export type { ComprobanteFacts, FakeChecks } from './checks.js';
export { accessKeyFor, readSample, rekey, signedComprobante, signWithTemplate, type ComprobanteChanges, type SampleName, type TestSigningKey } from './sign-for-tests.js';

export type FakeSriService = 'recepcion' | 'autorizacion';

/** One answer of the fake. Unless said otherwise a behaviour applies to either service. */
export type FakeSriBehaviour =
  /** Like the SRI: check, remember, answer. */
  | { kind: 'normal' }
  /** Like `normal` (the document is kept) but the connection is dropped instead of answering: the answer is lost. */
  | { kind: 'lost' }
  /** Recepción: RECIBIDA without checks; the document is kept when its key can be read. */
  | { kind: 'recibida' }
  /** Recepción: DEVUELTA with these messages. `keep`: remember the document anyway (as if received before). */
  | { kind: 'devuelta'; mensajes: FakeMessage[]; keep?: boolean }
  /** Autorización: EN PROCESO this time. */
  | { kind: 'en-proceso' }
  /** Autorización: AUTORIZADO now, whatever the checks said. */
  | { kind: 'autorizado' }
  /** Autorización: NO AUTORIZADO with these messages (the document ends rejected). */
  | { kind: 'no-autorizado'; mensajes: FakeMessage[] }
  /** Autorización: no `autorizaciones` (the SRI does not know the key). */
  | { kind: 'unknown' }
  /** Any HTTP status with an optional body (500 → "Internal Server Error"). */
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  /** A SOAP Fault (HTTP 500). */
  | { kind: 'fault'; faultcode?: string; faultstring: string }
  /** HTTP 200 with something that is not the SOAP (default: an HTML maintenance page). */
  | { kind: 'garbage'; body?: string; contentType?: string }
  /** Exactly this answer (a Buffer is sent as its bytes). */
  | { kind: 'raw'; status?: number; body: string | Buffer; contentType?: string }
  /** Drop the connection without answering. */
  | { kind: 'reset' }
  /** Never answer (until `close()`). */
  | { kind: 'hang' }
  /** Wait, then behave as `then` (default `normal`). The request is handled even if the client gave up. */
  | { kind: 'slow'; delayMs: number; then?: FakeSriBehaviour }
  /** A 200 answer that starts as SOAP and goes on for `bytes` bytes, streamed. */
  | { kind: 'oversized'; bytes: number }
  /** A 200 answer that starts as SOAP, then sends one byte every `intervalMs` and never ends. */
  | { kind: 'trickle'; intervalMs: number };

export type FakeSriPolicy = FakeSriBehaviour | ((call: FakeSriCall) => FakeSriBehaviour | undefined);

export interface FakeSriCall {
  /** 0-based, per fake. */
  n: number;
  service: FakeSriService | 'other';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** `Date.now()` when the request was complete. */
  at: number;
  /** The key sent (autorización) or read from the comprobante (recepción), when there was one. */
  accessKey?: string;
  /** Recepción: the comprobante decoded from base64, as text. */
  xml?: string;
  behaviour: FakeSriBehaviour['kind'];
  /** What was answered; absent for reset, hang and lost. */
  answer?: { status: number; estado?: string; mensajes?: FakeMessage[] };
  /** Bytes of body written (oversized answers). */
  bytesSent?: number;
}

export interface FakeSriDocument {
  accessKey: string;
  /** The exact text decoded from the base64 that was sent. */
  xml: string;
  bytes: Buffer;
  facts?: ComprobanteFacts;
  receivedAt: Date;
  /** Times it was received (RECIBIDA). */
  receptions: number;
  state: 'processing' | 'authorized' | 'rejected';
  /** EN PROCESO answers left before its verdict. */
  pollsLeft: number;
  /** Signature and key-component problems, reported at authorization when so configured. */
  late: FakeMessage[];
  /** Verdicts given, oldest first (the SRI lists every one). */
  history: FakeAutorizacion[];
}

export interface FakeSriOptions {
  /** Serve HTTPS with a certificate of this test CA for 127.0.0.1 and localhost. */
  pki?: TestPki;
  /** Which checks run (all by default; a benchmark may turn them off). */
  checks?: Partial<FakeChecks>;
  /**
   * Where signature (39) and key-component (58) problems are reported: `reception` (DEVUELTA,
   * the default) or `authorization` (NO AUTORIZADO, as the real SRI reports them).
   */
  lateChecksAt?: 'reception' | 'authorization';
  /** EN PROCESO answers every received document gets before its verdict (default 0). */
  processingPolls?: number;
  /** Add the 60 advertencia to test-environment authorizations, as the SRI does (default true). */
  ambienteWarning?: boolean;
  now?: () => Date;
}

export interface FakeSriStats {
  recepcion: number;
  autorizacion: number;
  RECIBIDA: number;
  DEVUELTA: number;
  AUTORIZADO: number;
  'NO AUTORIZADO': number;
  'EN PROCESO': number;
  /** Answers that were not SOAP verdicts: HTTP errors, faults, garbage, resets, hangs, lost. */
  failures: number;
}

export interface FakeSri {
  /** `http(s)://127.0.0.1:PORT/comprobantes-electronicos-ws`: what SELLO_SRI_TEST_URL would be. */
  baseUrl: string;
  port: number;
  calls: FakeSriCall[];
  documents: Map<string, FakeSriDocument>;
  /** Behaviours for the next calls of `service`, in order, before the policy. */
  enqueue(service: FakeSriService, ...behaviours: FakeSriBehaviour[]): void;
  /** What `service` does once its queue is empty (default `normal`). */
  setPolicy(service: FakeSriService, policy: FakeSriPolicy): void;
  /** Changes options for the calls to come. */
  configure(options: Pick<FakeSriOptions, 'checks' | 'lateChecksAt' | 'processingPolls' | 'ambienteWarning'>): void;
  /** Stops listening and closes every connection: clients get "connection refused". `forMs`: then `up()` by itself. */
  down(options?: { forMs?: number }): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  isUp(): boolean;
  stats(): FakeSriStats;
  /** Recepción calls that carried this key. */
  receptionsOf(accessKey: string): number;
  /** Resolves when `done(calls)` holds (polling every 5 ms); rejects after `timeoutMs`. */
  waitFor(done: (calls: FakeSriCall[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const RECEPCION_NS = 'http://ec.gob.sri.ws.recepcion';
const AUTORIZACION_NS = 'http://ec.gob.sri.ws.autorizacion';
const BASE_PATH = '/comprobantes-electronicos-ws';
const WSDL_DIR = fileURLToPath(new URL('../../fixtures/sri/wsdl/', import.meta.url));
const MAX_REQUEST = 20 * 1024 * 1024;

function elementChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === n.ELEMENT_NODE) out.push(n as Element);
  return out;
}

/** The operation element of a SOAP 1.1 request, or why there is none (a Client fault). */
function operationOf(body: Buffer, ns: string, operation: string): { element: Element } | { fault: string } {
  let root: Element | null;
  try {
    root = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(body.toString('utf8'), 'text/xml').documentElement;
  } catch (err) {
    return { fault: `Error reading XMLStreamReader: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!root || root.localName !== 'Envelope' || root.namespaceURI !== SOAP_ENV_NS) return { fault: 'No se encontró un sobre SOAP 1.1.' };
  const soapBody = elementChildren(root).find((e) => e.localName === 'Body' && e.namespaceURI === SOAP_ENV_NS);
  const element = soapBody ? elementChildren(soapBody)[0] : undefined;
  if (!element) return { fault: 'El Body SOAP está vacío.' };
  if (element.localName !== operation || element.namespaceURI !== ns) {
    return { fault: `Unexpected wrapper element {${element.namespaceURI ?? ''}}${element.localName} found.   Expected {${ns}}${operation}.` };
  }
  return { element };
}

/** The unqualified child's text, as JAX-B binds it (a qualified one is not the parameter). */
function parameter(element: Element, name: string): string | undefined {
  const el = elementChildren(element).find((c) => c.localName === name && !c.namespaceURI);
  return el ? (el.textContent ?? '') : undefined;
}

export async function startFakeSri(options: FakeSriOptions = {}): Promise<FakeSri> {
  const now = options.now ?? (() => new Date());
  let checks: FakeChecks = { xsd: true, accessKey: true, signature: true, ...options.checks };
  let lateChecksAt = options.lateChecksAt ?? 'reception';
  let processingPolls = options.processingPolls ?? 0;
  let ambienteWarning = options.ambienteWarning ?? true;
  const workDir = await mkdtemp(join(tmpdir(), 'sello-fake-sri-'));
  const calls: FakeSriCall[] = [];
  const documents = new Map<string, FakeSriDocument>();
  const queues: Record<FakeSriService, FakeSriBehaviour[]> = { recepcion: [], autorizacion: [] };
  const policies: Record<FakeSriService, FakeSriPolicy> = { recepcion: { kind: 'normal' }, autorizacion: { kind: 'normal' } };
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let listening = false;
  let closed = false;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST) chunks.push(c);
    });
    req.on('end', () => {
      void handle(req, res, size > MAX_REQUEST ? null : Buffer.concat(chunks)).catch((err: unknown) => {
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(`fake SRI failed: ${err instanceof Error ? err.stack : String(err)}`);
        } else res.destroy();
      });
    });
  };

  let server: http.Server;
  if (options.pki) {
    const cert = options.pki.issue({ subject: { commonName: 'SRI de pruebas' }, purpose: 'tls-server', altNames: ['127.0.0.1', 'localhost'] });
    server = https.createServer({ key: cert.privateKeyPem, cert: cert.certificatePem, keepAliveTimeout: 30_000 }, handler);
  } else {
    server = http.createServer({ keepAliveTimeout: 30_000 }, handler);
  }

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const baseUrl = `${options.pki ? 'https' : 'http'}://127.0.0.1:${port}${BASE_PATH}`;

  function send(call: FakeSriCall, res: ServerResponse, status: number, body: string | Buffer, contentType = 'text/xml;charset=UTF-8', verdict?: { estado: string; mensajes: FakeMessage[] }) {
    call.answer = { status, ...(verdict ? { estado: verdict.estado, mensajes: verdict.mensajes } : {}) };
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': contentType });
    res.end(body);
  }

  function pick(service: FakeSriService, call: FakeSriCall): FakeSriBehaviour {
    const queued = queues[service].shift();
    if (queued) return queued;
    const policy = policies[service];
    return (typeof policy === 'function' ? policy(call) : policy) ?? { kind: 'normal' };
  }

  function keep(accessKey: string, xml: string, bytes: Buffer, facts: ComprobanteFacts | undefined, late: FakeMessage[]): FakeSriDocument {
    const previous = documents.get(accessKey);
    const doc: FakeSriDocument = {
      accessKey,
      xml,
      bytes,
      ...(facts ? { facts } : {}),
      receivedAt: now(),
      receptions: (previous?.receptions ?? 0) + 1,
      state: 'processing',
      pollsLeft: processingPolls,
      late,
      history: previous?.history ?? [],
    };
    documents.set(accessKey, doc);
    return doc;
  }

  /** Recepción: decode, check, remember; the verdict. */
  async function receive(call: FakeSriCall, behaviour: 'normal' | 'recibida'): Promise<Reply> {
    const op = operationOf(call.rawBody, RECEPCION_NS, 'validarComprobante');
    if ('fault' in op) return { status: 500, body: faultAnswer('soap:Client', op.fault) };
    const devuelta = (claveAcceso: string, mensajes: FakeMessage[]) => ({
      status: 200,
      body: recepcionAnswer('DEVUELTA', claveAcceso, mensajes),
      verdict: { estado: 'DEVUELTA', mensajes },
    });
    const base64 = parameter(op.element, 'xml')?.replace(/\s+/g, '') ?? '';
    if (base64 === '') return devuelta('N/A', [sriMessages.argumentosNulos()]);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) {
      return devuelta('N/A', [sriMessages.estructura('El contenido del parámetro xml no es base64 válido.')]);
    }
    const bytes = Buffer.from(base64, 'base64');
    if (behaviour === 'recibida') {
      const xml = bytes.toString('utf8');
      const key = /<claveAcceso>\s*(\d{49})\s*<\/claveAcceso>/.exec(xml)?.[1];
      if (key) {
        call.accessKey = key;
        keep(key, xml, bytes, undefined, []);
      }
      call.xml = xml;
      return { status: 200, body: recepcionAnswer('RECIBIDA', key ?? 'N/A', []), verdict: { estado: 'RECIBIDA', mensajes: [] } };
    }
    const inspection = await inspectComprobante(bytes, { workDir, checks });
    if (inspection.xml !== undefined) call.xml = inspection.xml;
    if (!inspection.ok) {
      if (inspection.claveAcceso !== 'N/A') call.accessKey = inspection.claveAcceso;
      return devuelta(inspection.claveAcceso, inspection.mensajes);
    }
    const { facts } = inspection;
    call.accessKey = facts.claveAcceso;
    const existing = documents.get(facts.claveAcceso);
    if (existing?.state === 'processing') return devuelta(facts.claveAcceso, [sriMessages.enProcesamiento()]);
    if (existing?.state === 'authorized') return devuelta(facts.claveAcceso, [sriMessages.claveRegistrada()]);
    const sameNumber = [...documents.values()].find(
      (d) =>
        d.accessKey !== facts.claveAcceso &&
        d.state !== 'rejected' &&
        d.facts !== undefined &&
        d.facts.ruc === facts.ruc &&
        d.facts.codDoc === facts.codDoc &&
        d.facts.ambiente === facts.ambiente &&
        d.facts.estab === facts.estab &&
        d.facts.ptoEmi === facts.ptoEmi &&
        d.facts.secuencial === facts.secuencial,
    );
    if (sameNumber) return devuelta(facts.claveAcceso, [sriMessages.secuencialRegistrado()]);
    if (inspection.late.length > 0 && lateChecksAt === 'reception') return devuelta(facts.claveAcceso, inspection.late);
    keep(facts.claveAcceso, inspection.xml, bytes, facts, inspection.late);
    return { status: 200, body: recepcionAnswer('RECIBIDA', facts.claveAcceso, []), verdict: { estado: 'RECIBIDA', mensajes: [] } };
  }

  function verdictFor(doc: FakeSriDocument, estado: 'AUTORIZADO' | 'NO AUTORIZADO', mensajes: FakeMessage[]): FakeAutorizacion {
    const ambiente = doc.accessKey[23] === '2' ? 'PRODUCCIÓN' : 'PRUEBAS';
    const extra = ambiente === 'PRUEBAS' && ambienteWarning ? [sriMessages.ambientePruebas()] : [];
    return {
      estado,
      ...(estado === 'AUTORIZADO' ? { numeroAutorizacion: doc.accessKey } : {}),
      fechaAutorizacion: ecuadorDateTime(now()),
      ambiente,
      comprobante: doc.xml,
      mensajes: [...mensajes, ...extra],
    };
  }

  /** Autorización: the document's verdict, or what the behaviour forces. */
  type Reply = { status: number; body: string; verdict?: { estado: string; mensajes: FakeMessage[] } };

  function authorize(call: FakeSriCall, behaviour: 'normal' | 'en-proceso' | 'autorizado' | 'no-autorizado' | 'unknown', forced: FakeMessage[] = []): Reply {
    const op = operationOf(call.rawBody, AUTORIZACION_NS, 'autorizacionComprobante');
    if ('fault' in op) return { status: 500, body: faultAnswer('soap:Client', op.fault) };
    const key = (parameter(op.element, 'claveAccesoComprobante') ?? '').trim();
    call.accessKey = key;
    const answer = (list: FakeAutorizacion[]) => ({
      status: 200,
      body: autorizacionAnswer(key, list),
      verdict: { estado: list[0]?.estado ?? '(ninguna)', mensajes: list[0]?.mensajes ?? [] },
    });
    if (!/^\d{49}$/.test(key)) return answer([{ estado: 'NO AUTORIZADO', mensajes: [sriMessages.claveConsultaInvalida()] }]);
    const doc = documents.get(key);
    if (behaviour === 'unknown') return answer([]);
    if (behaviour === 'en-proceso') return answer([{ estado: 'EN PROCESO', mensajes: [] }]);
    if (!doc) {
      if (behaviour === 'autorizado') {
        return answer([{ estado: 'AUTORIZADO', numeroAutorizacion: key, fechaAutorizacion: ecuadorDateTime(now()), ambiente: key[23] === '2' ? 'PRODUCCIÓN' : 'PRUEBAS', mensajes: [] }]);
      }
      if (behaviour === 'no-autorizado') return answer([{ estado: 'NO AUTORIZADO', fechaAutorizacion: ecuadorDateTime(now()), mensajes: forced }]);
      return answer([]);
    }
    if (behaviour === 'autorizado' || behaviour === 'no-autorizado') {
      const verdict = behaviour === 'autorizado' ? verdictFor(doc, 'AUTORIZADO', []) : verdictFor(doc, 'NO AUTORIZADO', forced);
      doc.state = behaviour === 'autorizado' ? 'authorized' : 'rejected';
      doc.history.push(verdict);
    } else if (doc.state === 'processing') {
      if (doc.pollsLeft > 0) {
        doc.pollsLeft--;
        return answer([{ estado: 'EN PROCESO', mensajes: [] }]);
      }
      const rejected = lateChecksAt === 'authorization' && doc.late.length > 0;
      doc.state = rejected ? 'rejected' : 'authorized';
      doc.history.push(rejected ? verdictFor(doc, 'NO AUTORIZADO', doc.late) : verdictFor(doc, 'AUTORIZADO', []));
    }
    return answer([...doc.history].reverse());
  }

  async function act(call: FakeSriCall, behaviour: FakeSriBehaviour, res: ServerResponse): Promise<void> {
    call.behaviour = behaviour.kind;
    const service = call.service as FakeSriService;
    switch (behaviour.kind) {
      case 'normal':
      case 'lost':
      case 'recibida': {
        const result =
          service === 'recepcion' ? await receive(call, behaviour.kind === 'recibida' ? 'recibida' : 'normal') : authorize(call, 'normal');
        if (behaviour.kind === 'lost') {
          res.socket?.destroy();
          return;
        }
        send(call, res, result.status, result.body, undefined, result.verdict);
        return;
      }
      case 'devuelta': {
        const op = operationOf(call.rawBody, RECEPCION_NS, 'validarComprobante');
        let key = 'N/A';
        if (!('fault' in op)) {
          const bytes = Buffer.from((parameter(op.element, 'xml') ?? '').replace(/\s+/g, ''), 'base64');
          const xml = bytes.toString('utf8');
          call.xml = xml;
          key = /<claveAcceso>\s*(\d{49})\s*<\/claveAcceso>/.exec(xml)?.[1] ?? 'N/A';
          if (key !== 'N/A') {
            call.accessKey = key;
            if (behaviour.keep && !documents.has(key)) keep(key, xml, bytes, undefined, []);
          }
        }
        send(call, res, 200, recepcionAnswer('DEVUELTA', key, behaviour.mensajes), undefined, { estado: 'DEVUELTA', mensajes: behaviour.mensajes });
        return;
      }
      case 'en-proceso':
      case 'autorizado':
      case 'unknown':
      case 'no-autorizado': {
        const result = authorize(call, behaviour.kind, behaviour.kind === 'no-autorizado' ? behaviour.mensajes : []);
        send(call, res, result.status, result.body, undefined, result.verdict);
        return;
      }
      case 'status':
        send(call, res, behaviour.status, behaviour.body ?? (behaviour.status >= 500 ? 'Internal Server Error' : 'Error'), behaviour.contentType ?? 'text/plain');
        return;
      case 'fault':
        send(call, res, 500, faultAnswer(behaviour.faultcode ?? 'soap:Server', behaviour.faultstring));
        return;
      case 'garbage':
        send(
          call,
          res,
          200,
          behaviour.body ?? '<html><head><title>Servicio no disponible</title></head><body><h1>El servicio se encuentra en mantenimiento</h1></body></html>',
          behaviour.contentType ?? 'text/html',
        );
        return;
      case 'raw':
        send(call, res, behaviour.status ?? 200, behaviour.body, behaviour.contentType);
        return;
      case 'reset':
        res.socket?.destroy();
        return;
      case 'hang':
        held.add(res);
        return;
      case 'slow':
        await new Promise<void>((resolve) => later(behaviour.delayMs, resolve));
        await act(call, behaviour.then ?? { kind: 'normal' }, res);
        call.behaviour = 'slow';
        return;
      case 'trickle': {
        call.answer = { status: 200 };
        call.bytesSent = 0;
        res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8' });
        res.write(`<soap:Envelope xmlns:soap="${SOAP_ENV_NS}"><soap:Body>`);
        held.add(res);
        const drip = () => {
          if (res.destroyed || closed) return;
          res.write(' ');
          call.bytesSent! += 1;
          later(behaviour.intervalMs, drip);
        };
        drip();
        return;
      }
      case 'oversized': {
        call.answer = { status: 200 };
        call.bytesSent = 0;
        res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8' });
        const head =
          `<soap:Envelope xmlns:soap="${SOAP_ENV_NS}"><soap:Body><ns2:validarComprobanteResponse xmlns:ns2="${RECEPCION_NS}">` +
          '<RespuestaRecepcionComprobante><estado>RECIBIDA</estado><!--';
        const chunk = Buffer.alloc(64 * 1024, 'x');
        res.write(head);
        call.bytesSent += head.length;
        while (call.bytesSent < behaviour.bytes && !res.destroyed && !closed) {
          const ok = res.write(chunk);
          call.bytesSent += chunk.length;
          if (!ok) await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
        if (!res.destroyed) res.end('--></RespuestaRecepcionComprobante></ns2:validarComprobanteResponse></soap:Body></soap:Envelope>');
        return;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer | null): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const service: FakeSriCall['service'] =
      url.pathname === `${BASE_PATH}/RecepcionComprobantesOffline` ? 'recepcion' : url.pathname === `${BASE_PATH}/AutorizacionComprobantesOffline` ? 'autorizacion' : 'other';
    const call: FakeSriCall = {
      n: calls.length,
      service,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawBody: body ?? Buffer.alloc(0),
      at: Date.now(),
      behaviour: 'normal',
    };
    calls.push(call);
    if (service !== 'other' && req.method === 'GET' && url.searchParams.has('wsdl')) {
      const name = service === 'recepcion' ? 'RecepcionComprobantesOffline.wsdl' : 'AutorizacionComprobantesOffline.wsdl';
      const wsdl = (await readFile(join(WSDL_DIR, name), 'utf8')).replaceAll(`http://localhost${BASE_PATH}`, baseUrl);
      send(call, res, 200, wsdl);
      return;
    }
    if (service === 'other' || req.method !== 'POST') {
      send(call, res, 404, '<html><body>Not Found</body></html>', 'text/html');
      return;
    }
    if (body === null) {
      send(call, res, 413, 'Request Entity Too Large', 'text/plain');
      return;
    }
    if (!/^text\/xml\b/i.test(req.headers['content-type'] ?? '')) {
      send(call, res, 415, 'Unsupported Media Type (SOAP 1.1 uses text/xml)', 'text/plain');
      return;
    }
    await act(call, pick(service, call), res);
  }

  async function stopListening(): Promise<void> {
    if (!listening) return;
    listening = false;
    for (const res of held) res.destroy();
    held.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    // Let clients in this process see their kept-alive sockets close, so the next call
    // meets a refused connection rather than a stale socket.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const count = (estado: string) => calls.filter((c) => c.answer?.estado === estado).length;

  return {
    baseUrl,
    port,
    calls,
    documents,
    enqueue(service, ...behaviours) {
      queues[service].push(...behaviours);
    },
    setPolicy(service, policy) {
      policies[service] = policy;
    },
    configure(next) {
      if (next.checks) checks = { ...checks, ...next.checks };
      if (next.lateChecksAt) lateChecksAt = next.lateChecksAt;
      if (next.processingPolls !== undefined) processingPolls = next.processingPolls;
      if (next.ambienteWarning !== undefined) ambienteWarning = next.ambienteWarning;
    },
    async down(opts = {}) {
      await stopListening();
      if (opts.forMs !== undefined) later(opts.forMs, () => void (closed ? undefined : listen(port)));
    },
    async up() {
      if (!listening && !closed) await listen(port);
    },
    isUp: () => listening,
    stats() {
      const soap = ['RECIBIDA', 'DEVUELTA', 'AUTORIZADO', 'NO AUTORIZADO', 'EN PROCESO', '(ninguna)'];
      return {
        recepcion: calls.filter((c) => c.service === 'recepcion').length,
        autorizacion: calls.filter((c) => c.service === 'autorizacion').length,
        RECIBIDA: count('RECIBIDA'),
        DEVUELTA: count('DEVUELTA'),
        AUTORIZADO: count('AUTORIZADO'),
        'NO AUTORIZADO': count('NO AUTORIZADO'),
        'EN PROCESO': count('EN PROCESO'),
        failures: calls.filter((c) => c.service !== 'other' && !soap.includes(c.answer?.estado ?? '')).length,
      };
    },
    receptionsOf(accessKey) {
      return calls.filter((c) => c.service === 'recepcion' && c.accessKey === accessKey).length;
    },
    async waitFor(done, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!done(calls)) {
        if (Date.now() > until) throw new Error(`fake SRI: condition not met after ${timeoutMs} ms (${calls.length} calls)`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await stopListening();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
