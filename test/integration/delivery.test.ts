import { verify } from '@octokit/webhooks-methods';
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../core/auth/index.js';
import { createDeliveryEngine, pruneDeliveryHistory } from '../../core/delivery/index.js';
import type { Store } from '../../core/db/index.js';
import { createLogger } from '../../core/log/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { version } from '../../core/version.js';
import { createEndpoint, jsonApiHeaders, startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { selloJson, startServe } from '../helpers/cli.js';
import { emitEvent, emitEvents } from '../helpers/events.js';
import { startReceiver, type Receiver, type ReceivedRequest } from '../helpers/receiver.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

interface DeliveryJson {
  id: string;
  state: string;
  attempt_count: number;
  endpoint_id: string;
  webhook_id: string;
  last_error: string | null;
  attempts: Array<{ number: number; status: number | null; duration_ms: number; response_body: string | null; error: string | null; url: string }>;
}

const SECRET = 'secreto-de-pruebas-largo';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pki: TestPki;
let agent: TestAgent;
const receivers: Receiver[] = [];
const agents: TestAgent[] = [];

async function receiver(options: Parameters<typeof startReceiver>[1] = {}, which: TestPki = pki): Promise<Receiver> {
  const r = await startReceiver(which, options);
  receivers.push(r);
  return r;
}

interface BookOf {
  agent: TestAgent;
  bookId: string;
  key: string;
}

let books = 0;
/** A fresh book per test, so that each test's events reach only its own endpoints. */
function bookOf(a: TestAgent): BookOf {
  const { book, key } = a.addBook(`libro-${++books}`);
  return { agent: a, bookId: book.id, key };
}

async function endpointFor(b: BookOf, url: string, attributes: Record<string, unknown> = {}): Promise<string> {
  return (await createEndpoint(b.agent, b.key, { url, secret: SECRET, ...attributes })).id;
}

async function admin<T>(a: TestAgent, path: string, method = 'GET'): Promise<{ status: number; body: T }> {
  const res = await a.fetch(`/admin/api${path}`, { method, headers: { Authorization: `Bearer ${a.adminToken}` } });
  return { status: res.status, body: (await res.json()) as T };
}

async function deliveryOf(a: TestAgent, endpointId: string): Promise<DeliveryJson> {
  const { body } = await admin<{ data: DeliveryJson[] }>(a, `/webhook-endpoints/${endpointId}/deliveries`);
  expect(body.data).toHaveLength(1);
  return body.data[0]!;
}

async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 500)}`);
    await sleep(10);
  }
}

async function patchEndpoint(b: BookOf, id: string, attributes: Record<string, unknown>): Promise<void> {
  const res = await b.agent.fetch(`/api/v1/webhook-endpoints/${id}`, {
    method: 'PATCH',
    headers: jsonApiHeaders(b.key),
    body: JSON.stringify({ data: { type: 'webhook_endpoint', id, attributes } }),
  });
  expect(res.status).toBe(200);
}

async function scaledAgent(scale: number, extra: Parameters<typeof startTestAgent>[0] = {}): Promise<TestAgent> {
  const a = await startTestAgent({ deliveryTimeScale: scale, caFile: pki.ca.certificatePath, ...extra });
  agents.push(a);
  return a;
}

beforeAll(async () => {
  pki = await createTestPki();
  // 1e-5: the whole 8-attempt schedule (about 27.6 h) takes about a second.
  agent = await scaledAgent(0.00001);
});

afterAll(async () => {
  for (const a of agents) await a.close();
  for (const r of receivers) await r.close();
  await pki.cleanup();
});

describe('webhook delivery', () => {
  it('signs every delivery so that @octokit/webhooks-methods verifies it, with the contract’s headers', async () => {
    const b = bookOf(agent);
    const r = await receiver({
      // As a receiver should: verify the raw bytes before parsing; 401 when the signature is wrong.
      script: async (req: ReceivedRequest) =>
        (await verify(SECRET, req.rawBody.toString('utf8'), String(req.headers['x-service-signature'])))
          ? { status: 200, body: 'recibido' }
          : { status: 401 },
    });
    const endpointId = await endpointFor(b, r.url);
    const before = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: 20 }, () => emitEvent(agent, { bookId: b.bookId }));
    expect(events.every((e) => e.enqueued === 1)).toBe(true);
    await r.waitFor((reqs) => reqs.length >= 20);
    await until(() => agent.store.sqlite.prepare(`select count(*) as n from deliveries where endpoint_id = ? and state = 'delivered'`).get(endpointId) as { n: number }, (v) => v.n === 20);

    expect(r.requests.map((q) => q.answered)).toEqual(Array(20).fill(200));
    const byId = new Map(events.map((e) => [e.eventId, e]));
    for (const req of r.requests) {
      const event = byId.get(req.webhookId)!;
      expect(event).toBeDefined();
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hooks');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toBe(`Sello/${version}`);
      expect(req.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(Number(req.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
      expect(Number(req.headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      // The exact bytes of the event, fixed when it happened.
      expect(req.rawBody.toString('utf8')).toBe(event.body);
    }
    const endpoint = agent.store.sqlite.prepare('select last_status, last_delivered_at from webhook_endpoints where id = ?').get(endpointId) as {
      last_status: string;
      last_delivered_at: string;
    };
    expect(endpoint.last_status).toBe('200');
    expect(Date.parse(endpoint.last_delivered_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a receiver answering 500 three times then 200 gets exactly 4 requests, all with the same Webhook-Id', async () => {
    const b = bookOf(agent);
    const r = await receiver({ script: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    const event = emitEvent(agent, { bookId: b.bookId });
    const d = await until(() => deliveryOf(agent, endpointId), (v) => v.state === 'delivered');
    await sleep(200); // nothing more comes
    expect(r.requests).toHaveLength(4);
    expect(new Set(r.requests.map((q) => q.webhookId))).toEqual(new Set([event.eventId]));
    expect(d.attempt_count).toBe(4);
    expect(d.attempts.map((a) => a.status)).toEqual([500, 500, 500, 200]);
    expect(d.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4]);
    expect(d.attempts[0]!.response_body).toBe('no');
    expect(d.attempts[3]!.error).toBeNull();
  });

  it('a receiver that always fails gets exactly 8 requests; the delivery ends failed, listed, and can be sent again', async () => {
    const b = bookOf(agent);
    const r = await receiver({ script: [{ status: 500, body: 'x'.repeat(10_000) }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(agent, { bookId: b.bookId });
    const d = await until(() => deliveryOf(agent, endpointId), (v) => v.state === 'failed', 20_000);
    await sleep(200);
    expect(r.requests).toHaveLength(8);
    expect(d.attempts).toHaveLength(8);
    expect(d.attempts[0]!.response_body).toHaveLength(4096);

    const failed = await admin<{ data: DeliveryJson[] }>(agent, '/deliveries?state=failed');
    expect(failed.status).toBe(200);
    expect(failed.body.data.map((x) => x.id)).toContain(d.id);
    const one = await admin<{ data: DeliveryJson }>(agent, `/deliveries/${d.id}`);
    expect(one.body.data.attempts).toHaveLength(8);

    r.setScript([{ status: 204 }]);
    const resent = await admin<{ data: DeliveryJson }>(agent, `/deliveries/${d.id}/resend`, 'POST');
    expect(resent.status).toBe(200);
    const done = await until(() => deliveryOf(agent, endpointId), (v) => v.state === 'delivered');
    expect(r.requests).toHaveLength(9);
    expect(done.attempts).toHaveLength(9);
    expect(done.attempt_count).toBe(1); // a fresh budget

    // A delivered delivery is not re-sent; bad ids are 404s in the admin envelope.
    const again = await admin<{ error: { code: string } }>(agent, `/deliveries/${d.id}/resend`, 'POST');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('delivery_not_resendable');
    const missing = await admin<{ error: { code: string; message: string } }>(agent, '/deliveries/no-such-id');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await admin(agent, '/webhook-endpoints/no-such-id/deliveries')).status).toBe(404);
    expect((await admin(agent, '/webhook-endpoints/no-such-id/resend-failed', 'POST')).status).toBe(404);
    expect((await admin(agent, '/deliveries?state=nope')).status).toBe(400);
    const unauthenticated = await agent.fetch('/admin/api/deliveries?state=failed');
    expect(unauthenticated.status).toBe(401);
  });

  it('re-sends every failed delivery of an endpoint', async () => {
    const b = bookOf(agent);
    const r = await receiver({ script: [{ status: 503 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvents(agent, 3, { bookId: b.bookId });
    await until(
      () => admin<{ data: DeliveryJson[] }>(agent, `/webhook-endpoints/${endpointId}/deliveries?state=failed`),
      (v) => v.body.data.length === 3,
      20_000,
    );
    r.setScript([{ status: 200 }]);
    const res = await admin<{ data: { resent: number } }>(agent, `/webhook-endpoints/${endpointId}/resend-failed`, 'POST');
    expect(res.body.data.resent).toBe(3);
    await until(
      () => admin<{ data: DeliveryJson[] }>(agent, `/webhook-endpoints/${endpointId}/deliveries?state=delivered`),
      (v) => v.body.data.length === 3,
    );
    expect(r.requests).toHaveLength(8 * 3 + 3);
  });

  it('keeps at most one delivery per endpoint, document and event, only to subscribed live endpoints', async () => {
    const b = bookOf(agent);
    const r = await receiver();
    const all = await endpointFor(b, r.url);
    const rejectedOnly = await endpointFor(b, r.url, { events: ['document.rejected'] });
    const paused = await endpointFor(b, r.url, { active: false });
    const testEndpoint = (await createEndpoint(agent, createKey(agent.store, { family: 'b', environment: 'test', bookId: b.bookId }).key, { url: r.url, secret: SECRET })).id;
    const first = emitEvent(agent, { bookId: b.bookId, type: 'document.authorized' });
    expect(first.enqueued).toBe(1);
    const repeat = emitEvent(agent, { bookId: b.bookId, type: 'document.authorized', documentId: first.documentId });
    expect(repeat.enqueued).toBe(0);
    const rejected = emitEvent(agent, { bookId: b.bookId, type: 'document.rejected', documentId: first.documentId });
    expect(rejected.enqueued).toBe(2);
    await r.waitFor((reqs) => reqs.length >= 3);
    await sleep(200);
    expect(r.requests).toHaveLength(3);
    const count = (id: string) => (agent.store.sqlite.prepare('select count(*) as n from deliveries where endpoint_id = ?').get(id) as { n: number }).n;
    expect([count(all), count(rejectedOnly), count(paused), count(testEndpoint)]).toEqual([2, 1, 0, 0]);
  });
});

describe('failures of the receiver', () => {
  it('treats a 302 as a failure and never follows it', async () => {
    const b = bookOf(agent);
    const r = await receiver({ script: [{ status: 302, headers: { Location: 'https://127.0.0.1:1/elsewhere' } }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(agent, { bookId: b.bookId });
    const d = await until(() => deliveryOf(agent, endpointId), (v) => v.state === 'delivered');
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /hooks', 'POST /hooks']);
    expect(d.attempts[0]!.status).toBe(302);
    expect(d.attempts[0]!.error).toMatch(/Redirección 302 .*no seguida/);
  });

  it('records an unknown CA as a failed attempt with a clear error, and goes on', async () => {
    const b = bookOf(agent);
    const otherPki = await createTestPki();
    try {
      const r = await receiver({}, otherPki);
      const endpointId = await endpointFor(b, r.url);
      emitEvent(agent, { bookId: b.bookId });
      const d = await until(() => deliveryOf(agent, endpointId), (v) => v.attempts.length >= 2);
      expect(d.attempts[0]!.status).toBeNull();
      expect(d.attempts[0]!.error).toMatch(/no es de una autoridad de confianza \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
      expect(r.requests).toHaveLength(0);
      await patchEndpoint(b, endpointId, { active: false });
    } finally {
      await otherPki.cleanup();
    }
  });

  it('records a refused connection and a reset as failed attempts', async () => {
    const b = bookOf(agent);
    const r = await receiver({ script: [{ reset: true }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(agent, { bookId: b.bookId });
    const d = await until(() => deliveryOf(agent, endpointId), (v) => v.state === 'delivered');
    expect(d.attempts[0]!.error).toMatch(/cortó la conexión|cerró la conexión/);

    const closed = await receiver();
    const url = closed.url;
    await closed.close();
    const refusedId = await endpointFor(b, url);
    emitEvent(agent, { bookId: b.bookId });
    const refused = await until(() => deliveryOf(agent, refusedId), (v) => v.attempts.length >= 1);
    expect(refused.attempts[0]!.error).toMatch(/Conexión rechazada .*ECONNREFUSED/);
    await patchEndpoint(b, refusedId, { active: false });
  });

  it('times out a hanging receiver (timeout set through the internal deliveryTimeoutMs)', async () => {
    const a = await scaledAgent(0.001, { deliveryTimeoutMs: 300 });
    const b = bookOf(a);
    const r = await receiver({ script: [{ hang: true }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(a, { bookId: b.bookId });
    const d = await until(() => deliveryOf(a, endpointId), (v) => v.state === 'delivered');
    expect(d.attempts[0]!.error).toMatch(/en 0.3 s \(tiempo de espera agotado\)/);
    expect(d.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(290);
  });
});

describe('Retry-After, pause and delete (time scale 0.01: the second attempt comes 50 ms ± 20 % after the first)', () => {
  let slow: TestAgent;
  beforeAll(async () => {
    slow = await scaledAgent(0.01);
  });

  const gap = (r: Receiver) => r.requests[1]!.receivedAt - r.requests[0]!.receivedAt;

  it('honours Retry-After on 429 within the schedule: clamped to twice the base delay', async () => {
    const b = bookOf(slow);
    const r = await receiver({ script: [{ status: 429, headers: { 'Retry-After': '3600' } }, { status: 200 }] });
    await endpointFor(b, r.url);
    emitEvent(slow, { bookId: b.bookId });
    await r.waitFor((q) => q.length === 2);
    expect(gap(r)).toBeGreaterThanOrEqual(100);
    expect(gap(r)).toBeLessThan(1000);
  });

  it('honours Retry-After on 503 when it lies between the base delay and twice it', async () => {
    const b = bookOf(slow);
    const r = await receiver({ script: [{ status: 503, headers: { 'Retry-After': '8' } }, { status: 200 }] });
    await endpointFor(b, r.url);
    emitEvent(slow, { bookId: b.bookId });
    await r.waitFor((q) => q.length === 2);
    // 80 ms: beyond the jittered 40–60 ms the schedule alone would give.
    expect(gap(r)).toBeGreaterThanOrEqual(80);
  });

  it('reads the url and secret at send time: a PATCH between attempts applies to the retry', async () => {
    const b = bookOf(slow);
    const first = await receiver({ script: [{ status: 503, headers: { 'Retry-After': '3600' } }] });
    const second = await receiver({
      script: async (req: ReceivedRequest) =>
        (await verify('secreto-rotado-nuevo', req.rawBody.toString('utf8'), String(req.headers['x-service-signature']))) ? { status: 200 } : { status: 401 },
    });
    const endpointId = await endpointFor(b, first.url);
    const event = emitEvent(slow, { bookId: b.bookId });
    await first.waitFor((q) => q.length === 1);
    await patchEndpoint(b, endpointId, { url: second.url, secret: 'secreto-rotado-nuevo' });
    const d = await until(() => deliveryOf(slow, endpointId), (v) => v.state === 'delivered', 5_000);
    expect(first.requests).toHaveLength(1);
    expect(second.requests.map((q) => [q.webhookId, q.answered])).toEqual([[event.eventId, 200]]);
    expect(d.attempts.map((a) => a.url)).toEqual([first.url, second.url]);
  });

  it('keeps a paused endpoint’s delivery waiting, and sends it after un-pausing', async () => {
    const b = bookOf(slow);
    const r = await receiver({ script: [{ status: 503, headers: { 'Retry-After': '3600' } }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(slow, { bookId: b.bookId });
    await r.waitFor((q) => q.length === 1);
    await patchEndpoint(b, endpointId, { active: false });
    await sleep(500);
    expect(r.requests).toHaveLength(1);
    const waiting = await deliveryOf(slow, endpointId);
    expect(waiting.state).toBe('pending');
    expect(waiting.attempt_count).toBe(1);
    await patchEndpoint(b, endpointId, { active: true });
    // No wake from the PATCH: the engine's poll (at most 1 s) picks it up.
    const d = await until(() => deliveryOf(slow, endpointId), (v) => v.state === 'delivered', 5_000);
    expect(r.requests).toHaveLength(2);
    expect(d.attempt_count).toBe(2);
  });

  it('sends nothing more to an endpoint deleted while its delivery waits', async () => {
    const b = bookOf(slow);
    const r = await receiver({ script: [{ status: 503, headers: { 'Retry-After': '3600' } }, { status: 200 }] });
    const endpointId = await endpointFor(b, r.url);
    emitEvent(slow, { bookId: b.bookId });
    await r.waitFor((q) => q.length === 1);
    const res = await slow.fetch(`/api/v1/webhook-endpoints/${endpointId}`, { method: 'DELETE', headers: jsonApiHeaders(b.key) });
    expect(res.status).toBe(204);
    const d = await until(() => deliveryOf(slow, endpointId), (v) => v.state === 'cancelled', 8_000);
    expect(d.last_error).toBe('El destino fue eliminado.');
    expect(r.requests).toHaveLength(1);
  });
});

describe('an endpoint deleted between the claim and the request', () => {
  it('gets no request: the engine checks right before sending and cancels', async () => {
    const a = await scaledAgent(0.001);
    await a.delivery.stop(); // this test drives its own engine on the agent's store
    const b = bookOf(a);
    const r = await receiver();
    const endpointId = await endpointFor(b, r.url);
    let armed = true;
    // A store whose transactions, once a claim commits, see the endpoint deleted by "someone else".
    const store: Store = Object.create(a.store, {
      transaction: {
        value<T>(fn: () => T): T {
          const result = a.store.transaction(fn);
          if (armed && Array.isArray(result) && result.length > 0) {
            armed = false;
            a.store.sqlite.prepare('update webhook_endpoints set deleted_at = ?, active = 0 where id = ?').run(new Date().toISOString(), endpointId);
          }
          return result;
        },
      },
    }) as Store;
    const engine = createDeliveryEngine({
      store,
      secrets: loadSecretBox(a.dataDir),
      log: createLogger('silent'),
      timeScale: 0.001,
      caFile: pki.ca.certificatePath,
      retentionDays: 30,
      userAgent: 'Sello/test',
    });
    engine.start();
    try {
      emitEvent({ store: a.store, delivery: engine }, { bookId: b.bookId });
      const d = await until(() => deliveryOf(a, endpointId), (v) => v.state === 'cancelled');
      expect(armed).toBe(false);
      expect(d.attempts).toHaveLength(0);
      await sleep(100);
      expect(r.requests).toHaveLength(0);
    } finally {
      await engine.stop();
    }
  });
});

describe('crash recovery of `sello serve`', () => {
  it('after kill -9 with 1,000 deliveries outstanding and a restart: every event arrives, nothing recorded as delivered is sent again', { timeout: 120_000 }, async () => {
    const dataDir = tempDir('sello-crash-');
    // Slow answers keep many attempts in flight at the kill. The kill comes from the receiver at
    // the 100th request, not from a poll of the test: on a busy machine a poll is late by
    // hundreds of deliveries.
    // Armed once every status change is in; then the first request from the 100th on kills it.
    // Until then answers take 2 s, so that the engine's 64 attempts in flight let few deliveries
    // through while the status changes are still being written, however fast the machine is.
    let killFirst: (() => void) | undefined;
    let armed = false;
    const r = await receiver({
      script: (_req, n) => {
        if (n >= 99) killFirst?.();
        return { status: 200, delayMs: armed ? 300 : 2000 };
      },
    });
    const env = { SELLO_DELIVERY_TIME_SCALE: '0.001', SELLO_CA_FILE: pki.ca.certificatePath, SELLO_RATE_LIMIT_PER_MINUTE: '1000000000' };
    selloJson(['books', 'create', 'crash', '--tenant', 'oficina', '--data-dir', dataDir]);
    const { key } = selloJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'crash', '--data-dir', dataDir]);
    let serve = await startServe(dataDir, env);
    const first = serve;
    const armKill = () => {
      armed = true;
      killFirst = () => {
        killFirst = undefined;
        first.child.kill('SIGKILL');
      };
      if (r.requests.length >= 100) killFirst();
    };
    try {
      const api = (base: string, p: string, body: unknown, type = 'application/json') =>
        fetch(`${base}${p}`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': type, Accept: type }, body: JSON.stringify(body) });
      const ep = await api(serve.baseUrl, '/api/v1/webhook-endpoints', { data: { type: 'webhook_endpoint', attributes: { url: r.url, secret: SECRET } } }, 'application/vnd.api+json');
      expect(ep.status).toBe(201);

      const N = 1000;
      const ids: string[] = [];
      for (let i = 0; i < N; i += 50) {
        const created = await Promise.all(
          Array.from({ length: Math.min(50, N - i) }, async (_, j) => {
            const res = await api(serve.baseUrl, '/api/v1/documents', {
              external_ref: `crash-${i + j}`,
              country: 'EC',
              doc_type: 'invoice',
              numero: `001-001-${String(i + j).padStart(9, '0')}`,
              issue_date: '2026-11-21',
              currency: 'USD',
              grand_total: '10.00',
            });
            expect(res.status).toBe(201);
            return ((await res.json()) as { data: { id: string } }).data.id;
          }),
        );
        ids.push(...created);
      }
      // The status changes (each commits its event and delivery), 50 at a time, without waiting for deliveries.
      const authorize = (id: string) =>
        api(serve.baseUrl, `/api/v1/documents/${id}/status`, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: id, date: '2026-11-21T10:00:00-05:00' } });
      for (let i = 0; i < N; i += 50) {
        const statuses = await Promise.all(ids.slice(i, i + 50).map(authorize));
        expect(statuses.every((res) => res.status === 200)).toBe(true);
      }
      armKill();
      await r.waitFor((q) => q.length >= 100, 30_000);
      await serve.exited;
      const atKill = r.requests.length;

      // What the dead process had recorded as confirmed.
      const db = new BetterSqlite3(path.join(dataDir, 'sello.db'));
      const recorded = new Set((db.prepare("select message_id from deliveries where state = 'delivered'").all() as Array<{ message_id: string }>).map((x) => x.message_id));
      const sendingAtKill = (db.prepare("select count(*) as n from deliveries where state = 'sending'").get() as { n: number }).n;
      const events = (db.prepare('select id from events').all() as Array<{ id: string }>).map((x) => x.id);
      db.close();
      expect(events).toHaveLength(N);
      expect(atKill).toBeLessThan(N / 2); // the kill did come with most deliveries outstanding

      serve = await startServe(dataDir, env);
      const confirmed = () => new Set(r.requests.filter((q) => q.answered === 200).map((q) => q.webhookId));
      await r.waitFor(() => events.every((id) => confirmed().has(id)), 60_000);

      const after = r.requests.slice(atKill);
      // Nothing recorded as delivered before the kill is sent again.
      expect(after.filter((q) => recorded.has(q.webhookId))).toEqual([]);
      // Repeats only for attempts in flight at the kill (at most the engine's 64 leases).
      const seen = new Map<string, number>();
      for (const q of r.requests) seen.set(q.webhookId, (seen.get(q.webhookId) ?? 0) + 1);
      const repeated = [...seen].filter(([, n]) => n > 1);
      expect(repeated.length).toBeLessThanOrEqual(64);
      expect(sendingAtKill).toBeLessThanOrEqual(64);
      for (const [id] of repeated) expect(r.requests.slice(0, atKill).some((q) => q.webhookId === id)).toBe(true);

      // A graceful stop: SIGTERM drains and exits 0 quickly.
      const t = Date.now();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      // Bounded, not hanging: the engine drains for at most 5 s, the server closes in at most 5 s more.
      expect(Date.now() - t).toBeLessThan(15_000);
      const final = new BetterSqlite3(path.join(dataDir, 'sello.db'), { readonly: true });
      expect(final.prepare('select state, count(*) as n from deliveries group by state').all()).toEqual([{ state: 'delivered', n: N }]);
      final.close();
    } finally {
      serve.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('pruneDeliveryHistory', () => {
  it('removes old attempts, old finished deliveries and their events, and leaves everything else untouched', async () => {
    const a = await scaledAgent(0.001);
    await a.delivery.stop(); // rows seeded by hand stay as seeded
    const b = bookOf(a);
    const endpointId = await endpointFor(b, 'https://127.0.0.1:1/hooks');
    const db = a.store.sqlite;
    const old = '2026-01-01T00:00:00.000Z';
    const recent = new Date().toISOString();
    const seed = (state: string, at: string) => {
      const e = emitEvent(a, { bookId: b.bookId, noWake: true });
      db.prepare('update events set created_at = ? where id = ?').run(at, e.eventId);
      db.prepare('update deliveries set state = ?, completed_at = ?, created_at = ? where event_id = ?').run(state, state === 'pending' ? null : at, at, e.eventId);
      const id = (db.prepare('select id from deliveries where event_id = ?').get(e.eventId) as { id: string }).id;
      db.prepare("insert into delivery_attempts (delivery_id, number, attempted_at, url, status, duration_ms) values (?, 1, ?, 'https://x', 500, 3)").run(id, at);
      return e.eventId;
    };
    const gone = seed('delivered', old);
    const cancelledOld = seed('cancelled', old);
    const failedOld = seed('failed', old);
    const pendingOld = seed('pending', old);
    const deliveredRecent = seed('delivered', recent);
    expect(endpointId).toBeDefined();

    const removed = pruneDeliveryHistory(a.store, 30, Date.now());
    expect(removed).toEqual({ attempts: 4, deliveries: 2, events: 2 });
    const eventIds = (db.prepare('select id from events').all() as Array<{ id: string }>).map((x) => x.id);
    expect(eventIds).not.toContain(gone);
    expect(eventIds).not.toContain(cancelledOld);
    expect(eventIds).toEqual(expect.arrayContaining([failedOld, pendingOld, deliveredRecent]));
    const states = db.prepare('select state, count(*) as n from deliveries where event_id in (?, ?, ?) group by state order by state').all(failedOld, pendingOld, deliveredRecent);
    expect(states).toEqual([
      { state: 'delivered', n: 1 },
      { state: 'failed', n: 1 },
      { state: 'pending', n: 1 },
    ]);
    expect((db.prepare('select count(*) as n from delivery_attempts where attempted_at > ?').get(old) as { n: number }).n).toBeGreaterThanOrEqual(1);
  });
});
