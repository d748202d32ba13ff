/**
 * Background work through a full disk or a database held locked by another program (found by
 * `npm run test:faults`, issue 8, which also runs both faults against a real `sello serve` with
 * a request half-way): nothing of a failed write is recorded, so the work is simply done again
 * later. Before, a signing pass stopped by the store either crashed (the request stayed
 * `processing` until the next restart) or recorded the store's error as the signature's failure
 * (the request waited for a person's approval, for ever for a software key).
 */
import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { emitEvent } from '../helpers/events.js';
import { makeLargePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { addCertificate, createRequest, documentBody, waitForStatus } from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PAGES = 12;

let pki: TestPki;
let agent: TestAgent;
let receiver: Receiver;
let certificateId: string;

beforeAll(async () => {
  pki = await createTestPki();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, deliveryTimeScale: 0.001 });
  certificateId = addCertificate(agent, pki, { environment: 'test' }).id;
  receiver = await startReceiver(pki, { script: [{ status: 200, delayMs: 400 }] });
});

afterAll(async () => {
  await receiver?.close();
  await agent?.close();
  await pki?.cleanup();
});

const signed = (requestId: string): number =>
  (agent.store.sqlite.prepare("select count(*) as n from signing_signatures where request_id = ? and state = 'signed'").get(requestId) as { n: number }).n;
const failures = (requestId: string): unknown[] =>
  agent.store.sqlite.prepare('select last_error_code from signing_signatures where request_id = ? and last_error_code is not null').all(requestId);

/** A request of PAGES signatures on a 1 MB PDF, one per page, sent at once. */
async function sendRequest(): Promise<string> {
  const pdf = await makeLargePdf(PAGES, 1_000_000);
  const signatures = Array.from({ length: PAGES }, (_, i) => ({ signing_certificate: certificateId, page: String(i + 1), x: '36', y: '36' }));
  const { res, json } = await createRequest(agent, agent.testApiKey, { subject: 'Acta', send: true, documents: [documentBody(pdf, signatures)] });
  expect(res.status).toBe(200);
  return json.id;
}

async function expectCompleted(requestId: string): Promise<void> {
  const done = await waitForStatus(agent, agent.testApiKey, requestId, 'signed', 20_000);
  expect(failures(requestId)).toEqual([]);
  const res = await agent.fetch(`/digital-signatures/signing-requests/${requestId}/documents/${done.documents[0]!.id}/signed`, { headers: { 'X-Api-Key': agent.testApiKey } });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect((await pdfsig(bytes)).validity).toEqual(Array(PAGES).fill('Signature is Valid.'));
}

describe('signing through a storage fault', () => {
  it('a full store stops the request without recording a failure; it completes by itself once there is space', async () => {
    // What a full disk looks like to SQLite (SQLITE_FULL): room for the request and its 1 MB
    // original, not for the first signed copy. In this process a pass of software signatures
    // runs without yielding, so the fault has to be in place before it starts.
    agent.store.sqlite.exec('VACUUM');
    agent.store.sqlite.pragma(`max_page_count = ${(agent.store.sqlite.pragma('page_count', { simple: true }) as number) + 300}`);
    const id = await sendRequest();
    await sleep(500);
    expect(signed(id)).toBe(0);
    expect(failures(id)).toEqual([]);
    agent.store.sqlite.pragma('max_page_count = 1073741823');
    await expectCompleted(id);
  });
});

describe('a delivery through a storage fault', () => {
  it('keeps the outcome of an attempt the store could not record, and records it later: one request, delivered', async () => {
    const { book, key } = agent.addBook('almacen');
    const endpointId = (await createEndpoint(agent, key, { url: receiver.url, secret: 'secreto-de-pruebas-largo' })).id;
    const event = emitEvent(agent, { bookId: book.id });
    await receiver.waitFor((r) => r.length === 1, 10_000);
    // The answer comes in 400 ms, while another process holds the store.
    const other = new BetterSqlite3(path.join(agent.dataDir, 'sello.db'));
    other.exec('BEGIN EXCLUSIVE');
    setTimeout(() => {
      other.exec('COMMIT');
      other.close();
    }, 1_500);
    const until = Date.now() + 15_000;
    const state = () => (agent.store.sqlite.prepare('select state, attempts from deliveries where event_id = ? and endpoint_id = ?').get(event.eventId, endpointId) as { state: string; attempts: number });
    while (state().state !== 'delivered') {
      if (Date.now() > until) throw new Error(`not delivered: ${JSON.stringify(state())}`);
      await sleep(20);
    }
    await sleep(300);
    expect(receiver.requests.map((r) => r.webhookId)).toEqual([event.eventId]);
    expect(state()).toEqual({ state: 'delivered', attempts: 1 });
  });
});
