import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { accessKey, fiscalHeaders, invoiceBody } from '../helpers/documents.js';
import { makePdf } from '../helpers/pdf-fixtures.js';

interface DocBody {
  data: { id: string; status: string; environment: string; authorization: unknown; has_pdf: boolean; has_xml: boolean; [k: string]: unknown };
}
interface FiscalError {
  error: { code: string; message: string };
  errors?: Record<string, string[]>;
}

describe('documents', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  const create = (body: unknown, key = agent.liveKey) =>
    agent.fetch('/api/v1/documents', { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(body) });
  const status = (id: string, body: unknown, key = agent.liveKey) =>
    agent.fetch(`/api/v1/documents/${id}/status`, { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(body) });
  const events = () => agent.store.sqlite.prepare('select * from events order by created_at').all() as Array<{ document_id: string; type: string; body: string }>;

  async function rejects(send: () => Promise<Response>, httpStatus: number, code: string, field?: string): Promise<FiscalError> {
    const before = snapshot(agent) + JSON.stringify(agent.store.sqlite.prepare('select * from documents').all()) + JSON.stringify(events());
    const res = await send();
    const body = (await res.json()) as FiscalError;
    expect(res.status, JSON.stringify(body)).toBe(httpStatus);
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(5);
    if (field) {
      expect(Object.keys(body.errors ?? {}), JSON.stringify(body)).toContain(field);
      expect(body.errors![field]![0]!.length).toBeGreaterThan(5);
    }
    const after = snapshot(agent) + JSON.stringify(agent.store.sqlite.prepare('select * from documents').all()) + JSON.stringify(events());
    expect(after).toBe(before);
    return body;
  }

  it('creates a document as pending, in the key’s environment', async () => {
    const res = await create(invoiceBody({ external_ref: 'create-1', access_key: accessKey('live') }));
    expect(res.status).toBe(201);
    const body = (await res.json()) as DocBody;
    expect(body.data).toMatchObject({ status: 'pending', environment: 'live', grand_total: '112.00', access_key: accessKey('live'), authorization: null, has_pdf: false });
    expect(res.headers.get('location')).toBe(`/api/v1/documents/${body.data.id}`);
    const got = await agent.fetch(`/api/v1/documents/${body.data.id}`, { headers: fiscalHeaders(agent.liveKey) });
    expect(((await got.json()) as DocBody).data).toEqual(body.data);
  });

  it('replays a repeat of the same external_ref with the first result', async () => {
    const first = await create(invoiceBody({ external_ref: 'replay-1' }));
    const firstBody = await first.text();
    const before = agent.store.sqlite.prepare('select count(*) as n from documents').get();
    const again = await create(invoiceBody({ external_ref: 'replay-1' }));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(agent.store.sqlite.prepare('select count(*) as n from documents').get()).toEqual(before);
  });

  it('never creates two documents for concurrent duplicates', async () => {
    const sends = await Promise.all(Array.from({ length: 8 }, () => create(invoiceBody({ external_ref: 'concurrent-1' }))));
    const statuses = sends.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const fresh = sends.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') !== 'true');
    expect(fresh).toHaveLength(1);
    for (const r of sends.filter((s) => s.status === 409)) expect(((await r.json()) as FiscalError).error.code).toBe('in_progress');
    expect(agent.store.sqlite.prepare("select count(*) as n from documents where external_ref = 'concurrent-1'").get()).toEqual({ n: 1 });
  });

  it('refuses a repeat of external_ref with a different body, naming external_ref', async () => {
    await create(invoiceBody({ external_ref: 'differs-1' }));
    await rejects(() => create(invoiceBody({ external_ref: 'differs-1', grand_total: '113.00' })), 422, 'validation_failed', 'external_ref');
  });

  it('refuses bad bodies with 422 and Spanish messages by field path, changing nothing', async () => {
    await rejects(() => create(invoiceBody({ external_ref: 'bad-1', doc_type: 'factura' })), 422, 'validation_failed', 'doc_type');
    await rejects(() => create(invoiceBody({ external_ref: 'bad-2', access_key: accessKey('live').slice(0, 48) })), 422, 'validation_failed', 'access_key');
    const wrong = `${accessKey('live').slice(0, 48)}${(Number(accessKey('live')[48]) + 1) % 10}`;
    const body = await rejects(() => create(invoiceBody({ external_ref: 'bad-3', access_key: wrong })), 422, 'validation_failed', 'access_key');
    expect(body.errors!.access_key![0]).toMatch(/dígito verificador/);
    await rejects(() => create(invoiceBody({ external_ref: 'bad-4', access_key: accessKey('test') })), 422, 'validation_failed', 'access_key');
    for (const total of ['112,00', 'abc', 112, '1e3', '-5', '']) {
      await rejects(() => create(invoiceBody({ external_ref: 'bad-5', grand_total: total })), 422, 'validation_failed', 'grand_total');
    }
    for (const date of ['2026-02-30', '31/03/2026', '2026-13-01', '']) {
      await rejects(() => create(invoiceBody({ external_ref: 'bad-6', issue_date: date })), 422, 'validation_failed', 'issue_date');
    }
    await rejects(() => create(invoiceBody({ external_ref: 'bad-7', country: 'CO' })), 422, 'validation_failed', 'country');
    await rejects(() => create(invoiceBody({ external_ref: 'bad-8', currency: 'usd' })), 422, 'validation_failed', 'currency');
    await rejects(() => create(invoiceBody({ external_ref: 'bad-9', colour: 'red' })), 422, 'validation_failed', 'colour');
    await rejects(() => create(invoiceBody({ external_ref: 'bad-10', pdf_base64: 'no base64!' })), 422, 'validation_failed', 'pdf_base64');
    await rejects(() => create(invoiceBody({ external_ref: 'bad-11', pdf_base64: Buffer.from('hola').toString('base64') })), 422, 'validation_failed', 'pdf_base64');
    await rejects(() => create({}), 422, 'validation_failed', 'external_ref');
  });

  it('names unknown fields called like Object.prototype members, never failing with a 500', async () => {
    const body = await rejects(() => create({ ...invoiceBody({ external_ref: 'proto-1' }), constructor: 1, toString: 'x', __proto__: { a: 1 } }), 422, 'validation_failed', 'constructor');
    expect(body.errors!.toString).toEqual(['campo no admitido']);
  });

  it('answers malformed JSON with 400 and a wrong content type with 415 in the fiscal envelope', async () => {
    await rejects(() => agent.fetch('/api/v1/documents', { method: 'POST', headers: fiscalHeaders(agent.liveKey), body: '{"external_ref":' }), 400, 'invalid_json');
    await rejects(
      () => agent.fetch('/api/v1/documents', { method: 'POST', headers: { ...fiscalHeaders(agent.liveKey), 'Content-Type': 'text/plain' }, body: JSON.stringify(invoiceBody()) }),
      415,
      'unsupported_media_type',
    );
  });

  it('authorizes a live document: one event with the spec’s body, fixed at that moment', async () => {
    const doc = ((await (await create(invoiceBody({ external_ref: 'auth-1', access_key: accessKey('live', 7) }))).json()) as DocBody).data;
    const res = await status(doc.id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: accessKey('live', 7), date: '2026-03-31T10:15:00-05:00' } });
    expect(res.status).toBe(200);
    const updated = ((await res.json()) as DocBody).data;
    expect(updated).toMatchObject({ status: 'authorized', authorization: { status: 'AUTORIZADO', number: accessKey('live', 7), date: '2026-03-31T15:15:00.000Z' } });
    const mine = events().filter((e) => e.document_id === doc.id);
    expect(mine).toHaveLength(1);
    const body = JSON.parse(mine[0]!.body) as Record<string, unknown>;
    expect(body).toEqual({
      event: 'document.authorized',
      sent_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      document: {
        id: doc.id,
        doc_type: 'invoice',
        numero: '001-001-000000123',
        access_key: accessKey('live', 7),
        status: 'authorized',
        issue_date: '2026-03-31',
        currency: 'USD',
        grand_total: '112.00',
        authorization: { status: 'AUTORIZADO', number: accessKey('live', 7), date: '2026-03-31T15:15:00.000Z' },
        failure_reason: null,
      },
    });
    // The same change again is not a change: no second event.
    await status(doc.id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: accessKey('live', 7), date: '2026-03-31T10:15:00-05:00' } });
    expect(events().filter((e) => e.document_id === doc.id)).toHaveLength(1);
  });

  it('emits rejected and failed events with the failure reason', async () => {
    const doc = ((await (await create(invoiceBody({ external_ref: 'fail-1' }))).json()) as DocBody).data;
    await status(doc.id, { status: 'failed', failure_reason: 'SRI no responde' });
    await status(doc.id, { status: 'rejected', failure_reason: 'CLAVE ACCESO REGISTRADA' });
    const mine = events().filter((e) => e.document_id === doc.id).map((e) => JSON.parse(e.body) as { event: string; document: { failure_reason: string } });
    expect(mine.map((e) => [e.event, e.document.failure_reason])).toEqual([
      ['document.failed', 'SRI no responde'],
      ['document.rejected', 'CLAVE ACCESO REGISTRADA'],
    ]);
  });

  it('never emits events for test documents', async () => {
    const before = events().length;
    const doc = ((await (await create(invoiceBody({ external_ref: 'test-1', access_key: accessKey('test') }), agent.testKey)).json()) as DocBody).data;
    expect(doc.environment).toBe('test');
    const res = await status(doc.id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: '1', date: '2026-03-31T10:00:00Z' } }, agent.testKey);
    expect(res.status).toBe(200);
    expect(events().length).toBe(before);
  });

  it('refuses bad status changes, changing nothing', async () => {
    const doc = ((await (await create(invoiceBody({ external_ref: 'status-bad' }))).json()) as DocBody).data;
    await rejects(() => status(doc.id, { status: 'paid' }), 422, 'validation_failed', 'status');
    await rejects(() => status(doc.id, { status: 'authorized' }), 422, 'validation_failed', 'authorization');
    await rejects(() => status(doc.id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: '1', date: 'ayer' } }), 422, 'validation_failed', 'authorization.date');
    const other = agent.addBook('otro-libro');
    await rejects(() => status(doc.id, { status: 'failed' }, other.key), 404, 'not_found');
    await rejects(() => status(doc.id, { status: 'failed' }, agent.testKey), 404, 'not_found');
    await rejects(() => status('no-such-id', { status: 'failed' }), 404, 'not_found');
    await status(doc.id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: '1', date: '2026-03-31T10:00:00Z' } });
    await rejects(() => status(doc.id, { status: 'rejected' }), 422, 'validation_failed', 'status');
  });

  it('hides another book’s and the other environment’s documents with 404 not_found', async () => {
    const doc = ((await (await create(invoiceBody({ external_ref: 'hidden-1' }))).json()) as DocBody).data;
    const other = agent.addBook('ajeno');
    for (const key of [other.key, agent.testKey]) {
      const res = await agent.fetch(`/api/v1/documents/${doc.id}`, { headers: fiscalHeaders(key) });
      expect(res.status).toBe(404);
      expect(((await res.json()) as FiscalError).error.code).toBe('not_found');
    }
  });

  it('serves the XML, or 404 not_ready without it', async () => {
    const withXml = ((await (await create(invoiceBody({ external_ref: 'xml-1', xml: '<factura id="comprobante"/>' }))).json()) as DocBody).data;
    const xml = await agent.fetch(`/api/v1/documents/${withXml.id}/xml`, { headers: fiscalHeaders(agent.liveKey) });
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await xml.text()).toBe('<factura id="comprobante"/>');
    const without = ((await (await create(invoiceBody({ external_ref: 'xml-2' }))).json()) as DocBody).data;
    const res = await agent.fetch(`/api/v1/documents/${without.id}/xml`, { headers: fiscalHeaders(agent.liveKey) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as FiscalError).error.code).toBe('not_ready');
  });
});

describe('Family A downloads', () => {
  let agent: TestAgent;
  let pdf: Buffer;
  let id: string;
  beforeAll(async () => {
    agent = await startTestAgent();
    pdf = await makePdf({ pages: [{}] });
    const res = await agent.fetch('/api/v1/documents', {
      method: 'POST',
      headers: fiscalHeaders(agent.liveKey),
      body: JSON.stringify(invoiceBody({ external_ref: 'dl-1', pdf_base64: pdf.toString('base64') })),
    });
    id = ((await res.json()) as DocBody).data.id;
  });
  afterAll(() => agent.close());

  const get = (path: string, key = agent.liveApiKey) => agent.fetch(path, { headers: { 'X-Api-Key': key } });

  it('downloads the PDF at /d and /p', async () => {
    for (const prefix of ['/d', '/p']) {
      const res = await get(`${prefix}/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    }
  });

  it('verifies at /v and confirms receipt at /ack', async () => {
    const v = (await (await get(`/v/${id}`)).json()) as Record<string, unknown>;
    expect(v).toMatchObject({ id, status: 'pending', signatures: [] });
    const ack = (await (await get(`/ack/${id}`)).json()) as Record<string, unknown>;
    expect(ack).toEqual({ id, status: 'pending', authorization: null, received_at: expect.stringMatching(/^\d{4}-/) });
  });

  it('answers unknown ids, the other environment and missing keys in the Family A envelope', async () => {
    for (const path of ['/d/nope', '/p/nope', '/v/nope', '/ack/nope']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ type: 'invalid_request_error' });
    }
    expect((await get(`/d/${id}`, agent.testApiKey)).status).toBe(404);
    const noKey = await agent.fetch(`/d/${id}`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ type: 'authentication_error' });
  });
});
