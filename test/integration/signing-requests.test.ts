import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import {
  addCertificate,
  createRequest,
  documentBody,
  getRequest,
  signingSnapshot,
  waitForStatus,
  type AddedCertificate,
} from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

let pki: TestPki;
let agent: TestAgent;
let receiver: Receiver;
let testCert: AddedCertificate;
let otherTestCert: AddedCertificate;
let liveCert: AddedCertificate;
let expiredCert: AddedCertificate;
let pdf: Buffer;

beforeAll(async () => {
  pki = await createTestPki();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, deliveryTimeScale: 0.001 });
  receiver = await startReceiver(pki);
  testCert = addCertificate(agent, pki, { environment: 'test' });
  otherTestCert = addCertificate(agent, pki, { environment: 'test', commonName: 'LUIS ANDRADE' });
  liveCert = addCertificate(agent, pki, { environment: 'live' });
  expiredCert = addCertificate(agent, pki, { environment: 'test', notBefore: new Date('2020-01-01'), notAfter: new Date('2021-01-01') });
  pdf = await makePdf({ pages: [{}, {}] });
});

afterAll(async () => {
  await receiver?.close();
  await agent?.close();
  await pki?.cleanup();
});

describe('POST /digital-signatures/signing-requests with a test key', () => {
  it('signs two documents with two signatures each and sends one callback with the signed PDFs', async () => {
    const body = {
      subject: 'Contratos de marzo',
      type: 'ec/qualified',
      reference_id: 'erp-contratos-0001',
      callback_url: receiver.url,
      callback_bearer_token: 'token-del-erp',
      send: true,
      documents: [
        documentBody(pdf, [
          { signing_certificate: testCert.id, page: '1', x: '36', y: '36', size: 's' },
          { signing_certificate: otherTestCert.id, page: '2', x: '36', y: '400', size: 'm' },
        ], { id: 'doc-a' }),
        documentBody(pdf, [
          { signing_certificate: testCert.id, page: '2', x: '300', y: '36' },
          { signing_certificate: otherTestCert.id, page: '1', x: '36', y: '500', size: 'm' },
        ], { id: 'doc-b', title: 'Anexo', notes: 'interno' }),
      ],
    };
    const { res, json } = await createRequest(agent, agent.testApiKey, body);
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(json.environment).toBe('test');
    expect(['processing', 'signed']).toContain(json.status);
    expect(json.reference_id).toBe('erp-contratos-0001');
    expect(json.documents.map((d) => d.client_id)).toEqual(['doc-a', 'doc-b']);
    expect(json.documents[0]!.original_file_hash).toBe(sha256(pdf));

    await receiver.waitFor((r) => r.length >= 1, 20_000);
    const signed = await waitForStatus(agent, agent.testApiKey, json.id, 'signed');
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests).toHaveLength(1);
    const callback = receiver.requests[0]!;
    expect(callback.headers.authorization).toBe('Bearer token-del-erp');
    expect(callback.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(callback.rawBody.toString('utf8')) as {
      reference_id: string;
      signed_at: string;
      signers: Array<{ name: string; order: number; national_id: string; email: string; role: string; signed_at: string }>;
      documents: Array<{ id: string; client_id: string; name: string; hash: string; content_base64: string }>;
    };
    expect(payload.reference_id).toBe('erp-contratos-0001');
    expect(payload.signed_at).toBe(signed.signed);
    expect(payload.signers.map((s) => [s.order, s.name])).toEqual([[1, 'ANA MARÍA PÉREZ LÓPEZ'], [2, 'LUIS ANDRADE']]);
    expect(payload.signers[0]!.national_id).toBe('0912345678');
    expect(payload.documents.map((d) => d.client_id)).toEqual(['doc-a', 'doc-b']);
    expect(payload.documents.map((d) => d.name)).toEqual(['Contrato de servicios.pdf', 'Anexo.pdf']);
    for (const [i, doc] of payload.documents.entries()) {
      const bytes = Buffer.from(doc.content_base64, 'base64');
      expect(doc.hash).toBe(sha256(bytes));
      expect(signed.documents[i]!.signed_file_hash).toBe(doc.hash);
      const check = await pdfsig(bytes);
      expect(check.validity).toEqual(['Signature is Valid.', 'Signature is Valid.']);
      expect(check.lastCoversWholeDocument).toBe(true);
      // The download at the object's URL is the same file.
      const download = await fetch(signed.documents[i]!.signed_file, { headers: { 'X-Api-Key': agent.testApiKey } });
      expect(download.status).toBe(200);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(doc.hash);
      const original = await fetch(signed.documents[i]!.original_file, { headers: { 'X-Api-Key': agent.testApiKey } });
      expect(sha256(Buffer.from(await original.arrayBuffer()))).toBe(sha256(pdf));
    }
    expect(signed.documents.flatMap((d) => d.signatures.map((s) => s.status))).toEqual(['signed', 'signed', 'signed', 'signed']);
    // Each signature made once, its attempt counted with it.
    expect(agent.store.sqlite.prepare('select attempts from signing_signatures where request_id = ? order by position').pluck().all(json.id)).toEqual([1, 1, 1, 1]);
  });

  it('ends failed, with one attempt and its reason, a signature refused when it is made (certificate expired since the request)', async () => {
    const shortLived = addCertificate(agent, pki, { environment: 'test', commonName: 'CADUCA PRONTO', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 2_000) });
    const { json } = await createRequest(agent, agent.testApiKey, {
      subject: 'Caduca antes de firmar',
      documents: [documentBody(pdf, [{ signing_certificate: shortLived.id, page: '1', x: '10', y: '10' }])],
    });
    expect(json.status).toBe('draft');
    await new Promise((r) => setTimeout(r, 3_000));
    const sent = await agent.fetch(`/digital-signatures/signing-requests/${json.id}/send`, { method: 'POST', headers: { 'X-Api-Key': agent.testApiKey } });
    expect(sent.status).toBe(200);
    const row = () => agent.store.sqlite.prepare('select state, attempts, last_error_code, last_error from signing_signatures where request_id = ?').get(json.id) as { state: string; attempts: number; last_error_code: string | null; last_error: string | null };
    const until = Date.now() + 10_000;
    while (row().last_error_code === null && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    // No approval can renew a certificate: the failure is final (docs/signing-requests.md), no longer a wait.
    expect(row()).toMatchObject({ state: 'failed', attempts: 1, last_error_code: 'certificate_expired', last_error: expect.stringMatching(/caducó/) });
    expect((await getRequest(agent, agent.testApiKey, json.id)).json.status).toBe('failed');
  }, 20_000);

  it('keeps a request without send in draft, 404s its signed file, and signs it after POST …/send', async () => {
    const { json } = await createRequest(agent, agent.testApiKey, {
      subject: 'Borrador',
      documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }])],
    });
    expect(json.status).toBe('draft');
    // The answer to the create is the request as stored: the same as reading it back.
    expect((await getRequest(agent, agent.testApiKey, json.id)).json).toEqual(json);
    const early = await fetch(json.documents[0]!.signed_file, { headers: { 'X-Api-Key': agent.testApiKey } });
    expect(early.status).toBe(404);
    expect(await early.json()).toMatchObject({ type: 'invalid_request_error' });
    const sent = await agent.fetch(`/digital-signatures/signing-requests/${json.id}/send`, { method: 'POST', headers: { 'X-Api-Key': agent.testApiKey } });
    expect(sent.status).toBe(200);
    const signed = await waitForStatus(agent, agent.testApiKey, json.id, 'signed');
    expect(signed.signed).not.toBeNull();
    const again = await agent.fetch(`/digital-signatures/signing-requests/${json.id}/send`, { method: 'POST', headers: { 'X-Api-Key': agent.testApiKey } });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ type: 'invalid_request_error' });
  });

  it('replays an Idempotency-Key and refuses the same key with another body', async () => {
    const body = { subject: 'Idempotente', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }])] };
    const headers = { 'Idempotency-Key': 'clave-123' };
    const first = await createRequest(agent, agent.testApiKey, body, headers);
    const second = await createRequest(agent, agent.testApiKey, body, headers);
    expect(second.res.status).toBe(200);
    expect(second.res.headers.get('idempotent-replayed')).toBe('true');
    expect(second.json.id).toBe(first.json.id);
    const conflict = await createRequest(agent, agent.testApiKey, { ...body, subject: 'Otro' }, headers);
    expect(conflict.res.status).toBe(400);
    expect(conflict.json).toMatchObject({ type: 'invalid_request_error', params: { 'Idempotency-Key': [expect.any(String)] } });
    // The key is per environment: the live key may use it for its own request.
    const live = await createRequest(agent, agent.liveApiKey, { subject: 'Vivo', documents: [documentBody(pdf, [{ signing_certificate: liveCert.id, page: '1', x: '10', y: '10' }])] }, headers);
    expect(live.res.status).toBe(200);
    expect(live.json.id).not.toBe(first.json.id);
  });
});

describe('GET /api/v1/signature-requests/:reference_id (Family B, scope signing)', () => {
  interface SignatureRequestDoc {
    data: {
      type: string;
      id: string;
      attributes: {
        status: string;
        signers: Array<{ name: string; order: number }>;
        documents: Array<{ id: string; client_id: string; name: string; hash: string }>;
      };
    };
  }

  it('shows status, signers and documents with the signed hashes, to keys of the same environment only', async () => {
    const res = await agent.fetch('/api/v1/signature-requests/erp-contratos-0001', { headers: jsonApiHeaders(agent.testKey) });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as SignatureRequestDoc;
    expect(doc.data.type).toBe('signature_request');
    expect(doc.data.id).toBe('erp-contratos-0001');
    expect(doc.data.attributes.status).toBe('signed');
    expect(doc.data.attributes.signers.map((s) => s.order)).toEqual([1, 2]);
    expect(doc.data.attributes.documents.map((d) => d.client_id)).toEqual(['doc-a', 'doc-b']);
    const callback = JSON.parse(receiver.requests[0]!.rawBody.toString('utf8')) as { documents: Array<{ hash: string }> };
    expect(doc.data.attributes.documents.map((d) => d.hash)).toEqual(callback.documents.map((d) => d.hash));
    const live = await agent.fetch('/api/v1/signature-requests/erp-contratos-0001', { headers: jsonApiHeaders(agent.liveKey) });
    expect(live.status).toBe(404);
  });

  it('needs the signing scope', async () => {
    const { key } = agent.addBook('solo-contable', { environment: 'test', scopes: ['accounting'] });
    const res = await agent.fetch('/api/v1/signature-requests/erp-contratos-0001', { headers: jsonApiHeaders(key) });
    expect(res.status).toBe(403);
  });

  it('hides a request that names another book', async () => {
    const other = agent.addBook('otro-libro', { environment: 'test' });
    const { res } = await createRequest(agent, agent.testApiKey, {
      subject: 'Del otro libro',
      reference_id: 'otro-libro-1',
      book: 'otro-libro',
      documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }])],
    });
    expect(res.status).toBe(200);
    expect((await agent.fetch('/api/v1/signature-requests/otro-libro-1', { headers: jsonApiHeaders(other.key) })).status).toBe(200);
    expect((await agent.fetch('/api/v1/signature-requests/otro-libro-1', { headers: jsonApiHeaders(agent.testKey) })).status).toBe(404);
  });
});

describe('environments', () => {
  it('a live key never sees test certificates or requests, and the reverse', async () => {
    const onTest = await createRequest(agent, agent.testApiKey, { subject: 'Prueba', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }])] });
    const onLive = await createRequest(agent, agent.liveApiKey, { subject: 'Vivo', documents: [documentBody(pdf, [{ signing_certificate: liveCert.id, page: '1', x: '10', y: '10' }])] });
    expect((await getRequest(agent, agent.liveApiKey, onTest.json.id)).status).toBe(404);
    expect((await getRequest(agent, agent.testApiKey, onLive.json.id)).status).toBe(404);
    const file = await fetch(onTest.json.documents[0]!.original_file, { headers: { 'X-Api-Key': agent.liveApiKey } });
    expect(file.status).toBe(404);
    const crossed = await createRequest(agent, agent.liveApiKey, { subject: 'Cruce', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }])] });
    expect(crossed.res.status).toBe(400);
    expect(crossed.json.params).toHaveProperty(['documents[0].signatures[0].signing_certificate']);
    const reverse = await createRequest(agent, agent.testApiKey, { subject: 'Cruce', documents: [documentBody(pdf, [{ signing_certificate: liveCert.id, page: '1', x: '10', y: '10' }])] });
    expect(reverse.res.status).toBe(400);
  });
});

describe('bad input', () => {
  const ok = () => documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '10', y: '10' }]);
  const cases: Array<[string, () => unknown, string]> = [
    ['missing subject', () => ({ documents: [ok()] }), 'subject'],
    ['invalid base64', () => ({ subject: 's', documents: [{ ...ok(), document_base64: 'no es base64!!' }] }), 'documents[0].document_base64'],
    ['a non-PDF', () => ({ subject: 's', documents: [{ ...ok(), document_base64: Buffer.from('hola, no soy un PDF').toString('base64') }] }), 'documents[0].document_base64'],
    ['file_extension not pdf', () => ({ subject: 's', documents: [{ ...ok(), file_extension: 'docx' }] }), 'documents[0].file_extension'],
    ['unknown certificate', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: crypto.randomUUID(), page: '1', x: '1', y: '1' }])] }), 'documents[0].signatures[0].signing_certificate'],
    ['expired certificate', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: expiredCert.id, page: '1', x: '1', y: '1' }])] }), 'documents[0].signatures[0].signing_certificate'],
    ['other-environment certificate', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: liveCert.id, page: '1', x: '1', y: '1' }])] }), 'documents[0].signatures[0].signing_certificate'],
    ['page out of range', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '3', x: '1', y: '1' }])] }), 'documents[0].signatures[0].page'],
    ['x outside the crop box', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '500', y: '1' }])] }), 'documents[0].signatures[0].x'],
    ['y outside the crop box', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '1', y: '800' }])] }), 'documents[0].signatures[0].y'],
    ['size not s/m/l', () => ({ subject: 's', documents: [documentBody(pdf, [{ signing_certificate: testCert.id, page: '1', x: '1', y: '1', size: 'xl' }])] }), 'documents[0].signatures[0].size'],
    ['callback URL not HTTPS', () => ({ subject: 's', callback_url: 'http://erp.example/cb', documents: [ok()] }), 'callback_url'],
  ];
  for (const [name, body, field] of cases) {
    it(`refuses ${name} with the Family A envelope naming ${field}, storing nothing`, async () => {
      const before = signingSnapshot(agent);
      const { res, json } = await createRequest(agent, agent.testApiKey, body());
      expect(res.status).toBe(400);
      expect(json).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
      expect(Object.keys(json.params as Record<string, unknown>)).toContain(field);
      expect(signingSnapshot(agent)).toBe(before);
    });
  }

  it('refuses a body over 64 MiB with 413 in the Family A envelope', async () => {
    const before = signingSnapshot(agent);
    const big = `{"subject":"x","documents":[{"document_base64":"${'A'.repeat(64 * 1024 * 1024)}"}]}`;
    const { res, json } = await createRequest(agent, agent.testApiKey, big);
    expect(res.status).toBe(413);
    expect(json).toMatchObject({ type: 'invalid_request_error' });
    expect(signingSnapshot(agent)).toBe(before);
  });
});
