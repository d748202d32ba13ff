/**
 * The client of the SRI's two offline web services (CONTRACT §15; `../shared/fiscal/README.md`,
 * "Web services"): `validarComprobante` sends the signed comprobante's exact bytes to
 * `{base}/RecepcionComprobantesOffline`; `autorizacionComprobante` asks
 * `{base}/AutorizacionComprobantesOffline` about an access key.
 *
 * Every byte from the SRI is hostile: connection and whole-call timeouts, a cap on the answer's
 * size (read as a stream, the socket dropped past it), a parser that refuses DTDs, and answers
 * checked against the WSDL's shape. Every failure is an `SriError` (see `sri-errors.ts`) whose
 * `retryable` tells the submission job whether to try again; nothing else is thrown.
 *
 * HTTPS trusts the same CAs as webhook deliveries (`SELLO_CA_FILE`, `NODE_EXTRA_CA_CERTS`).
 * Plain HTTP is only accepted towards this machine (a stand-in SRI in tests).
 *
 * @example
 *   const sri = createSriClient({ caFile: config.caFile });
 *   const base = sriBaseUrl(config, 1);
 *   const recepcion = await sri.validarComprobante(base, signedXmlBytes);
 *   if (recepcion.estado === 'DEVUELTA') failureReason = formatSriMessages(recepcion.mensajes);
 *   const { autorizaciones } = await sri.autorizacionComprobante(base, accessKey);
 *   const reading = await sri.readPurchase(xmlText); // a received purchase, read on the answer thread
 *   sri.close();
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Config } from '../../config.js';
import { createHttpsAgent, TLS_CODES } from '../../delivery/index.js';
import type { Ambiente } from './invoice-model.js';
import { AnswerUnreadable, createAnswerThread } from './answer-thread/index.js';
import { purchaseSizeRefusal } from './purchase-limits.js';
import type { PurchaseReading } from './purchase-model.js';
import type { AnswerJob, AnswerOf, ReadAnswer, SriService } from './read-answer.js';
import type { AutorizacionAnswer, RecepcionAnswer } from './sri-answers.js';
import { SriError, SriFault, SriHttpError, SriRequestError, SriUnreachable } from './sri-errors.js';
import {
  AUTORIZACION_SERVICE,
  RECEPCION_SERVICE,
  UnexpectedAnswer,
  autorizacionComprobanteEnvelope,
  shorten,
  validarComprobanteEnvelope,
} from './soap-common.js';

export { formatSriMessages } from './sri-answers.js';
export type { AutorizacionAnswer, AutorizacionEstado, RecepcionAnswer, RecepcionEstado, SriAutorizacion, SriMessage } from './sri-answers.js';
export { SriError, SriFault, SriHttpError, SriRequestError, SriUnreachable, isSriError } from './sri-errors.js';
export type { SriErrorCode, SriUnreachableReason } from './sri-errors.js';

/** Up to the TCP connection and the TLS handshake. */
export const DEFAULT_SRI_CONNECT_TIMEOUT_MS = 10_000;
/** The whole call, connection to last byte: the SRI's reception often takes several seconds. */
export const DEFAULT_SRI_TIMEOUT_MS = 60_000;
/**
 * An authorization carries the comprobante (the SRI accepts up to a few hundred KB) and a few
 * verdicts; 2 MiB is far beyond. Answers are read on a thread of their own (./answer-thread):
 * the cap bounds that thread's work too.
 */
export const DEFAULT_SRI_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

export interface SriClientOptions {
  /** A PEM file of extra CAs (`SELLO_CA_FILE`), as for webhooks. */
  caFile?: string | undefined;
  connectTimeoutMs?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Concurrent connections per host (default 4). */
  maxSockets?: number;
  userAgent?: string;
  /** Reads an answer's text; by default on the client's own answer thread. */
  readAnswer?: (job: AnswerJob) => Promise<ReadAnswer>;
}

export interface SriClient {
  /** Sends the signed comprobante, its exact bytes, to the reception service. */
  validarComprobante(baseUrl: string, xml: Uint8Array): Promise<RecepcionAnswer>;
  /** Asks the authorization service about a 49-digit access key. */
  autorizacionComprobante(baseUrl: string, accessKey: string): Promise<AutorizacionAnswer>;
  /**
   * Reads a received purchase's XML (a signed factura, or the SRI's `autorizacion` holding one:
   * ./read-purchase.ts) on the client's answer thread, never on the caller's. Resolves with the
   * purchase or the Spanish reason it cannot be recorded, also when the thread could not read it
   * in time; touches no network.
   */
  readPurchase(text: string): Promise<PurchaseReading>;
  /** Cuts every call still running (they fail `SriUnreachable` "interrupted"): shutdown. */
  abortAll(): void;
  /** Closes idle keep-alive sockets and ends the answer thread. */
  close(): void;
}

/** The base URL of the SRI's web services for a document's ambiente (1 pruebas, 2 producción). */
export function sriBaseUrl(settings: Pick<Config, 'sriTestUrl' | 'sriProductionUrl'>, ambiente: Ambiente): string {
  return ambiente === 2 ? settings.sriProductionUrl : settings.sriTestUrl;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `{base}/{service}`, or a `SriRequestError` for a base that is not HTTPS (HTTP only to loopback). */
export function serviceUrl(baseUrl: string, service: string): URL {
  const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!base || !(base.protocol === 'https:' || (base.protocol === 'http:' && LOOPBACK.has(base.hostname))) || base.search || base.hash) {
    throw new SriRequestError(`Dirección del SRI no válida: «${shorten(baseUrl, 120)}» (se espera https://…, sin parámetros).`);
  }
  return new URL(`${base.href.replace(/\/+$/, '')}/${service}`);
}

class CallTimeout extends Error {
  constructor(
    readonly phase: 'connect' | 'total',
    readonly ms: number,
  ) {
    super(`${phase} timeout after ${ms} ms`);
  }
}
class Interrupted extends Error {}

interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export function createSriClient(options: SriClientOptions = {}): SriClient {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_SRI_CONNECT_TIMEOUT_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SRI_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_SRI_MAX_RESPONSE_BYTES;
  const maxSockets = options.maxSockets ?? 4;
  const userAgent = options.userAgent ?? 'Sello';
  // Built on first use: reading SELLO_CA_FILE must not happen for a client that never calls.
  let httpsAgent: https.Agent | undefined;
  let httpAgent: http.Agent | undefined;
  /** Calls in flight, each with the way to end it now (shutdown). */
  const running = new Map<ClientRequest, () => void>();
  // Started at the first answer or purchase; ended by close().
  let answerThread: ReturnType<typeof createAnswerThread> | undefined;
  const readAnswerOf =
    options.readAnswer ??
    ((job: AnswerJob) => {
      answerThread ??= createAnswerThread();
      return answerThread.read(job);
    });

  function agentFor(url: URL): http.Agent {
    if (url.protocol === 'https:') {
      if (!httpsAgent) {
        try {
          httpsAgent = createHttpsAgent({ caFile: options.caFile, maxSockets });
        } catch (err) {
          throw new SriRequestError(`No se pudo leer el archivo de CAs ${options.caFile ?? ''}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      return httpsAgent;
    }
    httpAgent ??= new http.Agent({ keepAlive: true, maxSockets });
    return httpAgent;
  }

  function post(url: URL, envelope: string): Promise<RawAnswer> {
    const body = Buffer.from(envelope, 'utf8');
    const agent = agentFor(url);
    return new Promise<RawAnswer>((resolve, reject) => {
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const finish = (err: SriError | null, answer?: RawAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(totalTimer);
        clearTimeout(connectTimer);
        running.delete(req);
        if (err) reject(err);
        else resolve(answer!);
      };
      // Settle with our own reason first: once the answer has begun, destroying the request only
      // surfaces as an "aborted" response, which would hide a timeout or a shutdown.
      const fail = (cause: Error) => {
        finish(describeFailure(cause, url));
        req.destroy();
      };
      const request = url.protocol === 'https:' ? https.request : http.request;
      const req = request(url, {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'text/xml; charset=utf-8',
          SOAPAction: '""',
          Accept: 'text/xml',
          'Content-Length': String(body.length),
          'User-Agent': userAgent,
        },
      });
      running.set(req, () => fail(new Interrupted()));
      const totalTimer = setTimeout(() => fail(new CallTimeout('total', timeoutMs)), timeoutMs);
      req.on('socket', (socket: Socket) => {
        // A kept-alive socket is already connected; a new one gets `connectTimeoutMs` for TCP and TLS.
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => fail(new CallTimeout('connect', connectTimeoutMs)), connectTimeoutMs);
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      req.on('error', (err) => finish(describeFailure(err, url)));
      req.on('response', (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxResponseBytes) {
          finish(tooLarge(url, maxResponseBytes));
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            finish(tooLarge(url, maxResponseBytes));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => finish(describeFailure(err, url)));
        res.on('close', () => {
          if (!res.complete) finish(new SriUnreachable('reset', `El SRI (${url.host}) cortó la conexión antes de terminar su respuesta.`, res.statusCode));
        });
      });
      req.end(body);
    });
  }

  async function call<S extends SriService>(url: URL, envelope: string, service: S): Promise<AnswerOf[S]> {
    const raw = await post(url, envelope);
    const host = url.host;
    const { status } = raw;
    let read: ReadAnswer;
    try {
      read = await readAnswerOf({ service, text: decodeUtf8(raw) });
    } catch (err) {
      if (err instanceof UnexpectedAnswer) read = { kind: 'garbage', why: err.message };
      else if (err instanceof AnswerUnreadable) read = { kind: 'garbage', why: `no se pudo leer (${err.message})` };
      else throw err;
    }
    if (read.kind === 'fault') {
      throw new SriFault(
        read.faultcode,
        read.faultstring,
        status,
        `El SRI (${host}) respondió un SOAP Fault${read.faultcode ? ` ${shorten(read.faultcode, 60)}` : ''}: ${shorten(read.faultstring) || '(sin faultstring)'}`,
      );
    }
    if (status >= 500) throw new SriUnreachable('http_5xx', `El SRI (${host}) respondió HTTP ${status}: servicio no disponible por ahora.`, status);
    if (status >= 300 && status < 400) {
      const location = raw.headers.location;
      throw new SriHttpError(status, `El SRI (${host}) respondió HTTP ${status} hacia ${location ? shorten(location, 120) : '(sin Location)'}; no se siguen redirecciones.`);
    }
    if (status >= 400) throw new SriHttpError(status, `El SRI (${host}) respondió HTTP ${status} a la solicitud.`);
    if (status < 200) throw new SriUnreachable('garbage', `El SRI (${host}) respondió un estado HTTP inesperado (${status}).`, status);
    if (read.kind === 'garbage') throw garbageError(host, read.why, status);
    return read.value as AnswerOf[S];
  }

  /** Everything thrown out of the client is an SriError. */
  async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SriError) throw err;
      throw new SriUnreachable('network', `Error inesperado al hablar con el SRI: ${shorten(err instanceof Error ? err.message : String(err))}`);
    }
  }

  return {
    validarComprobante(baseUrl, xml) {
      return guarded(async () => {
        const url = serviceUrl(baseUrl, RECEPCION_SERVICE);
        if (!(xml instanceof Uint8Array) || xml.byteLength === 0) throw new SriRequestError('No hay comprobante que enviar al SRI (XML vacío).');
        return call(url, validarComprobanteEnvelope(xml), 'recepcion');
      });
    },
    autorizacionComprobante(baseUrl, accessKey) {
      return guarded(async () => {
        const url = serviceUrl(baseUrl, AUTORIZACION_SERVICE);
        if (typeof accessKey !== 'string' || !/^\d{49}$/.test(accessKey)) {
          throw new SriRequestError(`La clave de acceso debe tener 49 dígitos; se recibió «${shorten(String(accessKey), 60)}».`);
        }
        return call(url, autorizacionComprobanteEnvelope(accessKey), 'autorizacion');
      });
    },
    async readPurchase(text) {
      // Refused here, before a copy of it is posted to the thread.
      const tooLarge = typeof text === 'string' ? purchaseSizeRefusal(text) : 'No llegó el XML del comprobante.';
      if (tooLarge) return { kind: 'refused', reason: tooLarge };
      answerThread ??= createAnswerThread();
      try {
        return await answerThread.readPurchase(text);
      } catch (err) {
        if (err instanceof AnswerUnreadable) return { kind: 'refused', reason: `Sello no pudo leer el XML de la compra (${err.message}).` };
        throw err;
      }
    },
    abortAll() {
      for (const abort of [...running.values()]) abort();
    },
    close() {
      httpsAgent?.destroy();
      httpAgent?.destroy();
      void answerThread?.close();
      answerThread = undefined;
    },
  };
}

function decodeUtf8(raw: RawAnswer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw.body);
  } catch {
    throw new UnexpectedAnswer('no es texto UTF-8 válido');
  }
}

function garbageError(host: string, why: string, status: number): SriUnreachable {
  return new SriUnreachable('garbage', `La respuesta del SRI (${host}) no es el SOAP esperado: ${why}.`, status);
}

function tooLarge(url: URL, max: number): SriUnreachable {
  return new SriUnreachable('too_large', `La respuesta del SRI (${url.host}) supera ${Math.round((max / 1024 / 1024) * 10) / 10} MB; se cortó la conexión.`);
}

/** A failed call's error as an `SriUnreachable` with a clear Spanish reason. */
function describeFailure(err: Error, url: URL): SriError {
  if (err instanceof SriError) return err;
  const where = url.host;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (err instanceof CallTimeout) {
    return err.phase === 'connect'
      ? new SriUnreachable('connect_timeout', `No se pudo conectar con el SRI (${where}) en ${err.ms / 1000} s (tiempo de conexión agotado).`)
      : new SriUnreachable('timeout', `El SRI (${where}) no respondió completo en ${err.ms / 1000} s (tiempo de espera agotado).`);
  }
  if (err instanceof Interrupted) return new SriUnreachable('interrupted', 'Consulta al SRI interrumpida porque Sello se detuvo; se reintentará.');
  if (TLS_CODES.has(code)) {
    return new SriUnreachable(
      'tls',
      `El certificado HTTPS de ${where} no es de una autoridad de confianza (${code}). Configure la CA en SELLO_CA_FILE o NODE_EXTRA_CA_CERTS.`,
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return new SriUnreachable('tls', `El certificado HTTPS de ${where} está caducado (${code}).`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return new SriUnreachable('tls', `El certificado HTTPS de ${where} no corresponde a ese nombre (${code}).`);
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(err.message)) {
    return new SriUnreachable('tls', `Falló la conexión segura (TLS) con ${where}: ${shorten(err.message, 120)}${code ? ` (${code})` : ''}.`);
  }
  if (code === 'ECONNREFUSED') return new SriUnreachable('refused', `Conexión rechazada por ${where} (${code}): el servicio del SRI no está disponible.`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || err.message === 'socket hang up' || err.message === 'aborted') {
    return new SriUnreachable('reset', `El SRI (${where}) cortó la conexión sin responder (${code || err.message}).`);
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SriUnreachable('dns', `No se pudo resolver el nombre ${url.hostname} (${code}).`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ETIMEDOUT' || code === 'ENETDOWN') {
    return new SriUnreachable('no_route', `No hay ruta hasta el SRI (${where}) (${code}).`);
  }
  return new SriUnreachable('network', `Error de red con el SRI (${where}): ${shorten(err.message, 120)}${code ? ` (${code})` : ''}.`);
}
