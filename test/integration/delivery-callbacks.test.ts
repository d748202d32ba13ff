/**
 * `enqueueCallback` (CONTRACT §9, spec Events rule 6): the signing-result callback is a
 * durable delivery with the callback schedule's 5 attempts, an optional bearer token and a
 * body fixed when it is enqueued; at most one per signing request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

let pki: TestPki;
let agent: TestAgent;
const receivers: Receiver[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, deliveryTimeScale: 0.0001 });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await agent?.close();
  await pki?.cleanup();
});

describe('enqueueCallback', () => {
  it('sends the body with the bearer token, once per request', async () => {
    const receiver = await startReceiver(pki);
    receivers.push(receiver);
    const body = JSON.stringify({ reference_id: 'r-1', signed_at: new Date().toISOString(), signers: [], documents: [] });
    const written = agent.store.transaction(() => [
      agent.delivery.enqueueCallback({ url: receiver.url, bearerToken: 'secreto-del-erp', body, requestId: 'req-1' }),
      agent.delivery.enqueueCallback({ url: receiver.url, bearerToken: 'secreto-del-erp', body, requestId: 'req-1' }),
    ]);
    expect(written).toEqual([1, 0]);
    agent.delivery.wake();
    await receiver.waitFor((r) => r.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers.authorization).toBe('Bearer secreto-del-erp');
    expect(receiver.requests[0]!.rawBody.toString('utf8')).toBe(body);
    const row = agent.store.sqlite.prepare("select state, kind, bearer_sealed from deliveries where id = 'cb_req-1'").get() as { state: string; kind: string; bearer_sealed: string };
    expect(row.kind).toBe('callback');
    expect(row.bearer_sealed).not.toContain('secreto-del-erp');
  });

  it('gives up after 5 attempts on the callback schedule, same Webhook-Id and body each time', async () => {
    const receiver = await startReceiver(pki, { script: [{ status: 500 }] });
    receivers.push(receiver);
    const body = '{"reference_id":"r-2"}';
    agent.store.transaction(() => agent.delivery.enqueueCallback({ url: receiver.url, body, requestId: 'req-2' }));
    agent.delivery.wake();
    await receiver.waitFor((r) => r.length >= 5, 15_000);
    const until = Date.now() + 5_000;
    let state = '';
    while (Date.now() < until) {
      state = (agent.store.sqlite.prepare("select state from deliveries where id = 'cb_req-2'").get() as { state: string }).state;
      if (state === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('failed');
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests).toHaveLength(5);
    expect(new Set(receiver.requests.map((r) => r.webhookId)).size).toBe(1);
    expect(receiver.requests.every((r) => r.rawBody.toString('utf8') === body && r.headers.authorization === undefined)).toBe(true);
  });
});
