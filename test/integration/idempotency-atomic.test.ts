import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';
import { fiscalHeaders, invoiceBody } from '../helpers/documents.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { addCertificate, createRequest, documentBody } from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

/**
 * A create and its stored answer (the replay of its `external_ref` or `Idempotency-Key`) are
 * one commit. A trigger added by another connection makes storing the answer fail, standing in
 * for a crash between two commits: nothing may be left behind (not even a claim "in progress"),
 * and the ERP's retry must create the thing once.
 */
describe('idempotent creates are one commit with their stored answer', () => {
  let agent: TestAgent;
  let pki: TestPki;
  let other: BetterSqlite3.Database;
  beforeAll(async () => {
    agent = await startTestAgent();
    pki = await createTestPki();
    other = new BetterSqlite3(path.join(agent.dataDir, 'sello.db'));
  });
  afterAll(async () => {
    other.close();
    await agent.close();
    await pki.cleanup();
  });

  // Storing the answer fails, and so would releasing a claim afterwards (as on a full disk):
  // a claim committed on its own would then stay "in progress" until a restart.
  const failStoringAnswers = () =>
    other.exec(`create trigger fail_answer before update of state on idempotency_keys when new.state = 'done'
                begin select raise(abort, 'simulated crash before the answer is stored'); end;
                create trigger fail_release before delete on idempotency_keys
                begin select raise(abort, 'simulated full disk'); end`);
  const storeAnswersAgain = () => other.exec('drop trigger fail_answer; drop trigger fail_release');
  const count = (sql: string, ...params: unknown[]) => (other.prepare(sql).get(...params) as { n: number }).n;

  it('documents: no document without its answer, and the retry creates it once', async () => {
    const body = JSON.stringify(invoiceBody({ external_ref: 'atomica-1' }));
    const send = () => agent.fetch('/api/v1/documents', { method: 'POST', headers: fiscalHeaders(agent.liveKey), body });
    failStoringAnswers();
    expect((await send()).status).toBe(500);
    expect(count("select count(*) as n from documents where external_ref = 'atomica-1'")).toBe(0);
    storeAnswersAgain();
    const created = await send();
    expect(created.status).toBe(201);
    const replay = await send();
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(count("select count(*) as n from documents where external_ref = 'atomica-1'")).toBe(1);
  });

  it('signing requests: no request without its answer, and the retry creates (and signs) one', async () => {
    const cert = addCertificate(agent, pki, { environment: 'live' });
    const body = { subject: 'Atómica', documents: [documentBody(await makePdf(), [{ signing_certificate: cert.id, page: '1', x: '36', y: '36' }])] };
    const headers = { 'Idempotency-Key': 'atomica-firma-1' };
    const requests = () => count("select count(*) as n from signing_requests where subject = 'Atómica'");
    failStoringAnswers();
    expect((await createRequest(agent, agent.liveApiKey, body, headers)).res.status).toBe(500);
    expect(requests()).toBe(0);
    storeAnswersAgain();
    const first = await createRequest(agent, agent.liveApiKey, body, headers);
    expect(first.res.status).toBe(200);
    const again = await createRequest(agent, agent.liveApiKey, body, headers);
    expect(again.json.id).toBe(first.json.id);
    expect(requests()).toBe(1);
  });
});
