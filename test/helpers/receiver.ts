/**
 * A scriptable HTTPS webhook receiver on 127.0.0.1 with a certificate from the test CA.
 * It records every request (headers, raw body, time) and answers as the script says.
 *
 * @example
 *   const pki = await createTestPki();
 *   const receiver = await startReceiver(pki, { script: [{ status: 500 }, { status: 500 }, { status: 200 }] });
 *   // endpoint url: receiver.url; agent caFile: pki.ca.certificatePath
 *   await receiver.waitFor((r) => r.length >= 3);
 *   await receiver.close();
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestPki } from './test-ca.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** `Date.now()` when the request's body was complete. */
  receivedAt: number;
  /** `Webhook-Id` header. */
  webhookId: string;
  /** What the receiver answered (undefined for hang/reset). */
  answered?: number;
}

/** One answer: a status (with headers/body), optionally late; or no answer at all. */
export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  | { hang: true }
  /** Close the connection without answering. */
  | { reset: true };

export interface ReceiverOptions {
  /**
   * Answers in order, by request number (0-based, per receiver); the last one repeats.
   * A function decides per request instead. Default: always 200.
   */
  script?: Reply[] | ((req: ReceivedRequest, n: number) => Reply | Promise<Reply>);
  /** Certificate names; default 127.0.0.1 and localhost. */
  altNames?: string[];
}

export interface Receiver {
  /** `https://127.0.0.1:PORT/hooks` */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replace the script for the requests to come. */
  setScript(script: NonNullable<ReceiverOptions['script']>): void;
  /** Resolves when `done(requests)` holds, polling every 5 ms; rejects after `timeoutMs`. */
  waitFor(done: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(pki: TestPki, options: ReceiverOptions = {}): Promise<Receiver> {
  const cert = pki.issue({
    subject: { commonName: 'receptor de pruebas' },
    purpose: 'tls-server',
    altNames: options.altNames ?? ['127.0.0.1', 'localhost'],
  });
  let script = options.script ?? [{ status: 200 }];
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server = https.createServer({ key: cert.privateKeyPem, cert: cert.certificatePem, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const record: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
        webhookId: String(req.headers['webhook-id'] ?? ''),
      };
      const n = requests.length;
      requests.push(record);
      const reply = typeof script === 'function' ? await script(record, n) : (script[Math.min(n, script.length - 1)] ?? { status: 200 });
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      if ('reset' in reply) {
        // A TLS socket can't send a TCP RST from here: drop the connection without an answer.
        req.socket.destroy();
        return;
      }
      const answer = () => {
        record.answered = reply.status;
        res.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? (reply.status < 300 ? 'ok' : 'no'));
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://127.0.0.1:${port}/hooks`,
    port,
    requests,
    setScript(next) {
      script = next;
    },
    async waitFor(done, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!done(requests)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met after ${timeoutMs} ms (${requests.length} requests)`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
