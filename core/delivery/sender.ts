import fs from 'node:fs';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

/** What one HTTP attempt came to. `status` is absent when no response arrived. */
export interface HttpResult {
  status: number | null;
  /** The first 4 KiB of the response body, as text (CONTRACT §9). */
  body: string | null;
  retryAfter: string | undefined;
  durationMs: number;
  /** A clear Spanish text of what went wrong, or null on a 2xx. */
  error: string | null;
  /** Cut by `abortAll()` (shutdown): not the receiver's fault. */
  interrupted?: true;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: Buffer): Promise<HttpResult>;
  /** Cuts every request still running (their results say so) and closes idle sockets. */
  abortAll(): void;
  close(): void;
}

const KEPT_BODY = 4096;
/** Read at most this much of a response, then drop the socket: a receiver can't make us buffer gigabytes. */
const MAX_DRAINED = 1024 * 1024;

/**
 * The CAs for HTTPS destinations (CONTRACT §9): the system roots plus the configured
 * file. Node only adds `NODE_EXTRA_CA_CERTS` when no `ca` is given, so when a CA file
 * is configured we read that variable's file too.
 */
export function trustedCas(caFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (!caFile) return undefined;
  const cas = [...tls.rootCertificates];
  if (env.NODE_EXTRA_CA_CERTS) {
    try {
      cas.push(fs.readFileSync(env.NODE_EXTRA_CA_CERTS, 'utf8'));
    } catch {
      // Node warns about an unreadable NODE_EXTRA_CA_CERTS itself.
    }
  }
  cas.push(fs.readFileSync(caFile, 'utf8'));
  return cas;
}

/**
 * A keep-alive HTTPS agent trusting `trustedCas(caFile)`: how Sello reaches every HTTPS
 * destination (webhook endpoints, the SRI's web services), so both trust the same CAs.
 */
export function createHttpsAgent(options: { caFile?: string | undefined; maxSockets: number }): https.Agent {
  const ca = trustedCas(options.caFile);
  // One secure context built once: passing `ca` itself would make the agent join every
  // CA's PEM into each request's pool key and build a context per connection.
  const secureContext = ca ? tls.createSecureContext({ ca }) : undefined;
  return new https.Agent({ keepAlive: true, maxSockets: options.maxSockets, ...(secureContext ? { secureContext } : {}) });
}

/**
 * Posts with node:https over a keep-alive agent. No redirects are followed (node never
 * follows them; a 3xx is reported as a failure), and the whole attempt, connection to
 * last byte, is bounded by `timeoutMs` (15 s in production, CONTRACT §9).
 */
export function createSender(options: { caFile?: string | undefined; timeoutMs: number; maxSockets: number }): Sender {
  const agent = createHttpsAgent({ caFile: options.caFile, maxSockets: options.maxSockets });
  const running = new Set<ClientRequest>();

  return {
    send(url, headers, body) {
      const started = performance.now();
      const duration = () => Math.round(performance.now() - started);
      return new Promise<HttpResult>((resolve) => {
        let settled = false;
        const done = (result: Omit<HttpResult, 'durationMs'>) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          running.delete(req);
          resolve({ ...result, durationMs: duration() });
        };
        let parsed: URL;
        try {
          parsed = new URL(url);
          if (parsed.protocol !== 'https:') throw new Error('not https');
        } catch {
          // Endpoints are validated on write; this only guards rows written by hand.
          resolve({ status: null, body: null, retryAfter: undefined, durationMs: 0, error: `URL de destino no válida o no HTTPS: ${url}` });
          return;
        }
        const req = https.request(parsed, { method: 'POST', agent, headers });
        running.add(req);
        const timer = setTimeout(() => req.destroy(new TimeoutError(options.timeoutMs)), options.timeoutMs);
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          let seen = 0;
          res.on('data', (chunk: Buffer) => {
            seen += chunk.length;
            if (kept < KEPT_BODY) {
              const part = chunk.subarray(0, KEPT_BODY - kept);
              chunks.push(part);
              kept += part.length;
            }
            if (seen > MAX_DRAINED) res.destroy();
          });
          const finish = () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            const retryAfter = res.headers['retry-after'];
            let error: string | null = null;
            if (status >= 300 && status < 400) {
              error = `Redirección ${status} hacia ${res.headers.location ?? '(sin Location)'} no seguida: solo una respuesta 2xx confirma la entrega.`;
            } else if (status < 200 || status >= 300) {
              error = `El receptor respondió HTTP ${status}.`;
            }
            done({ status, body: text, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, error });
          };
          res.on('end', finish);
          // The status line arrived: a body cut short still counts as that status.
          res.on('close', finish);
          res.on('error', () => undefined);
        });
        req.on('error', (err) =>
          done({
            status: null,
            body: null,
            retryAfter: undefined,
            error: describeError(err, parsed),
            ...(err instanceof ShutdownError ? { interrupted: true as const } : {}),
          }),
        );
        req.end(body);
      });
    },
    abortAll() {
      for (const req of running) req.destroy(new ShutdownError());
    },
    close() {
      agent.destroy();
    },
  };
}

class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`timeout after ${ms} ms`);
  }
}

class ShutdownError extends Error {}

/** Node's codes for an HTTPS certificate that does not chain to a trusted CA. */
export const TLS_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/** A failed attempt's error in plain Spanish, with the code for support. */
export function describeError(err: Error, url: URL): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const where = url.host;
  if (err instanceof TimeoutError) return `Sin respuesta completa de ${where} en ${err.ms / 1000} s (tiempo de espera agotado).`;
  if (err instanceof ShutdownError) return 'Intento interrumpido porque Sello se detuvo; se reintentará al iniciar.';
  if (TLS_CODES.has(code)) {
    return `El certificado HTTPS de ${where} no es de una autoridad de confianza (${code}). Configure la CA del receptor en SELLO_CA_FILE o NODE_EXTRA_CA_CERTS.`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `El certificado HTTPS de ${where} está caducado (${code}).`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `El certificado HTTPS de ${where} no corresponde a ese nombre (${code}).`;
  if (code === 'ECONNREFUSED') return `Conexión rechazada por ${where} (${code}): no hay un servicio escuchando.`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `El receptor ${where} cortó la conexión (${code}).`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `No se pudo resolver el nombre ${url.hostname} (${code}).`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `No hay ruta hasta ${where} (${code}).`;
  if (err.message === 'socket hang up') return `El receptor ${where} cerró la conexión sin responder (socket hang up).`;
  return `Error al enviar a ${where}: ${err.message}${code ? ` (${code})` : ''}.`;
}
