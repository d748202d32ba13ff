/**
 * The Compras recibidas screen's admin API (CONTRACT §14, §15): a real agent and the fake SRI. A
 * supplier — another book of the same agent, with its own issuer — issues facturas to the book's
 * RUC that the fake SRI authorizes; the admin session records them for the book and environment
 * it names, by access key (Sello asks the fake's authorization service) and by XML, with the
 * API's answers and errors (201/200, 422 by field, 422 book_not_configured, 503 sri_unavailable);
 * lists them newest first per book and environment, paged, each with the withholdings issued for
 * it and their state; refuses bad queries in Spanish; and answers nobody without the session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecuadorDate } from '../../../core/fiscal/sri/index.js';
import { fiscalHeaders } from '../../helpers/documents.js';
import { comprobanteClient, ISSUER_RUC, issuerBody, putIssuer, startInvoiceRig, validInvoiceBody, type InvoiceRig } from '../../helpers/invoices.js';

/** The supplier: a sociedad RUC with a valid modulo-11 digit. */
const SUPPLIER_RUC = '1790011674001';
const SUPPLIER_NAME = 'Distribuidora Ñandú & Cía. Ltda.';
/** The book's issuer as the supplier's customer. */
const BUYER = { name: 'Contadores Andinos Pérez & Asociados S.A.', tax_id: ISSUER_RUC, tax_id_type: { type: 'ec-ruc', code: '06' } };

interface Withholding {
  id: string;
  numero: string;
  status: string;
  grand_total: string;
}

interface Item {
  id: string;
  access_key: string;
  source: string;
  doc_type: string;
  numero: string;
  issue_date: string;
  supplier: { ruc: string; name: string; trade_name: string | null };
  currency: string;
  grand_total: string;
  authorization: { number: string; date: string | null } | null;
  book: string;
  environment: string;
  withholdings: Withholding[];
}

interface Answer<T> {
  data: T;
  meta: { total: number; limit: number; offset: number };
  error?: { code: string; message: string };
  errors?: Record<string, string[]>;
}

type Issued = { id: string; numero: string; access_key: string };

let rig: InvoiceRig;
let supplierKey: string;
let ref = 0;

const adminHeaders = () => ({ Authorization: `Bearer ${rig.agent.adminToken}` });

async function list(query: string): Promise<{ status: number; body: Answer<Item[]> }> {
  const res = await rig.agent.fetch(`/admin/api/fiscal/purchases${query ? `?${query}` : ''}`, { headers: adminHeaders() });
  return { status: res.status, body: (await res.json()) as Answer<Item[]> };
}

async function record(body: unknown): Promise<{ status: number; body: Answer<Item> }> {
  const res = await rig.agent.fetch('/admin/api/fiscal/purchases', {
    method: 'POST',
    headers: { ...adminHeaders(), 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer<Item> };
}

function purchaseCount(): number {
  return rig.agent.store.statement<[], { n: number }>('select count(*) as n from purchases').get()!.n;
}

/** A factura of the supplier to the book (2 × 50.00 at 15 % and 20.00 at 0 %: 135.00), authorized by the fake SRI. */
async function supplierInvoice(): Promise<Issued> {
  const invoices = comprobanteClient(rig, '/api/v1/invoices');
  const { status, json } = await invoices.post(validInvoiceBody(`PROV-ADM-${++ref}`, { customer: BUYER }), supplierKey);
  expect(status, JSON.stringify(json)).toBe(201);
  const done = await invoices.waitFor(json.data!.id, ['authorized', 'rejected', 'failed'], supplierKey);
  expect(done.status, JSON.stringify(done)).toBe('authorized');
  return json.data!;
}

/** Records `invoice` by key through the admin API, for the agent's book in test. */
async function recordByKey(invoice: Issued): Promise<Item> {
  const { status, body } = await record({ book: 'acme', environment: 'test', access_key: invoice.access_key });
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data;
}

beforeAll(async () => {
  rig = await startInvoiceRig();
  const supplier = rig.agent.addBook('proveedor', { environment: 'test' });
  await putIssuer(rig.agent, supplier.key, issuerBody(rig.testCertificateId, { ruc: SUPPLIER_RUC, razon_social: SUPPLIER_NAME, nombre_comercial: 'Ñandú' }));
  supplierKey = supplier.key;
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

describe('POST /admin/api/fiscal/purchases', () => {
  it('records a factura by access key for the book and environment it names; the same key again is the same purchase', async () => {
    const invoice = await supplierInvoice();
    const { status, body } = await record({ book: 'acme', environment: 'test', access_key: invoice.access_key });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.data).toMatchObject({
      access_key: invoice.access_key,
      source: 'sri',
      doc_type: 'invoice',
      numero: invoice.numero,
      issue_date: ecuadorDate(new Date()),
      supplier: { ruc: SUPPLIER_RUC, name: SUPPLIER_NAME, trade_name: 'Ñandú' },
      currency: 'USD',
      grand_total: '135.00',
      authorization: { number: invoice.access_key },
      book: 'acme',
      environment: 'test',
      withholdings: [],
    });

    const again = await record({ book: rig.agent.book.id, environment: 'test', access_key: invoice.access_key });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: body.data.id, book: 'acme', withholdings: [] });

    // The book's own key sees it: recorded in the book and environment, not somewhere of the admin's.
    const own = await rig.agent.fetch(`/api/v1/purchases/${body.data.id}`, { headers: { Authorization: `Bearer ${rig.agent.testKey}`, Accept: 'application/vnd.api+json' } });
    expect(own.status).toBe(200);
    expect((await rig.agent.fetch(`/api/v1/purchases/${body.data.id}`, { headers: { Authorization: `Bearer ${rig.agent.liveKey}`, Accept: 'application/vnd.api+json' } })).status).toBe(404);
  });

  it('records a factura received by e-mail (its XML, as the renderer reads the file)', async () => {
    const invoice = await supplierInvoice();
    const xml = await (await rig.agent.fetch(`/api/v1/invoices/${invoice.id}/xml`, { headers: { Authorization: `Bearer ${supplierKey}` } })).text();
    const { status, body } = await record({ book: 'acme', environment: 'test', xml });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.data).toMatchObject({ source: 'xml', access_key: invoice.access_key, numero: invoice.numero, grand_total: '135.00', book: 'acme', environment: 'test', withholdings: [] });
  });

  it('a key with a wrong check digit, or not a key: 422 validation_failed with errors.access_key in Spanish, nothing recorded', async () => {
    const invoice = await supplierInvoice();
    const before = purchaseCount();
    const wrong = invoice.access_key.slice(0, 48) + String((Number(invoice.access_key[48]) + 1) % 10);
    const refused = await record({ book: 'acme', environment: 'test', access_key: wrong });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error?.code).toBe('validation_failed');
    expect(Object.keys(refused.body.errors ?? {})).toEqual(['access_key']);
    expect(refused.body.errors?.access_key?.join(' ')).toMatch(/dígito verificador .*no corresponde/);

    const short = await record({ book: 'acme', environment: 'test', access_key: '12345' });
    expect(short.status).toBe(422);
    expect(short.body.errors?.access_key?.join(' ')).toMatch(/49 dígitos/);
    expect(purchaseCount()).toBe(before);
  });

  it('a body without its book, environment or purchase: every problem by field in one 422', async () => {
    const none = await record({});
    expect(none.status).toBe(422);
    expect(none.body.error?.code).toBe('validation_failed');
    expect(Object.keys(none.body.errors ?? {}).sort()).toEqual(['access_key', 'book', 'environment']);
    expect(none.body.errors?.environment).toEqual(['debe ser live o test']);
    expect(none.body.errors?.access_key?.join(' ')).toMatch(/uno de los dos/);

    const both = await record({ book: 'acme', environment: 'prod', access_key: '1'.repeat(49), xml: '<factura/>', colour: 'rojo' });
    expect(both.status).toBe(422);
    expect(both.body.errors).toEqual({
      access_key: [expect.stringMatching(/uno de los dos/)],
      colour: ['campo no admitido'],
      environment: ['debe ser live o test'],
    });

    const notObject = await record('[1, 2]');
    expect(notObject.status).toBe(422);
    expect(Object.keys(notObject.body.errors ?? {})).toEqual(['body']);
  });

  it('a book that does not exist: 404; one without issuer in that environment: 422 book_not_configured', async () => {
    const missing = await record({ book: 'no-existe', environment: 'test', access_key: '1'.repeat(49) });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: 'No existe el libro no-existe.' });

    rig.agent.addBook('sin-emisor');
    const bare = await record({ book: 'sin-emisor', environment: 'test', access_key: '1'.repeat(49) });
    expect(bare.status).toBe(422);
    expect(bare.body.error?.code).toBe('book_not_configured');
    expect(bare.body.error?.message).toMatch(/pantalla Emisor/);
    // The agent's book has an issuer in test only.
    const live = await record({ book: 'acme', environment: 'live', access_key: '1'.repeat(49) });
    expect(live.status).toBe(422);
    expect(live.body.error?.code).toBe('book_not_configured');
  });

  it('the SRI unreachable: 503 sri_unavailable, nothing recorded', async () => {
    const invoice = await supplierInvoice();
    const before = purchaseCount();
    await rig.sri.down();
    try {
      const { status, body } = await record({ book: 'acme', environment: 'test', access_key: invoice.access_key });
      expect(status, JSON.stringify(body)).toBe(503);
      expect(body.error?.code).toBe('sri_unavailable');
    } finally {
      await rig.sri.up();
    }
    expect(purchaseCount()).toBe(before);
  });
});

describe('GET /admin/api/fiscal/purchases', () => {
  let first: Item;
  let second: Item;
  let third: Item;

  beforeAll(async () => {
    // Three purchases of their own, newest last: what the describe above left is in the book too.
    first = await recordByKey(await supplierInvoice());
    second = await recordByKey(await supplierInvoice());
    third = await recordByKey(await supplierInvoice());
  }, 60_000);

  it('lists the book’s purchases in the environment, newest first, with the book, environment and total', async () => {
    const { status, body } = await list('book=acme&environment=test');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.meta).toEqual({ total: purchaseCount(), limit: 50, offset: 0 });
    expect(body.data.slice(0, 3).map((p) => p.id)).toEqual([third.id, second.id, first.id]);
    expect(body.data[0]).toEqual(third);
    expect(body.data[0]).toMatchObject({ book: 'acme', environment: 'test', supplier: { ruc: SUPPLIER_RUC, name: SUPPLIER_NAME }, grand_total: '135.00', withholdings: [] });
  });

  it('takes the book by id or slug (all books without it), and defaults to live', async () => {
    const byId = await list(`book=${rig.agent.book.id}&environment=test`);
    expect(byId.body.data.slice(0, 3).map((p) => p.id)).toEqual([third.id, second.id, first.id]);
    expect((await list('environment=test')).body.meta.total).toBe(purchaseCount());
    expect((await list('book=acme')).body).toMatchObject({ data: [], meta: { total: 0, limit: 50, offset: 0 } });
    expect((await list('book=proveedor&environment=test')).body).toMatchObject({ data: [], meta: { total: 0 } });
    const missing = await list('book=no-existe&environment=test');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: 'No existe el libro no-existe.' });
  });

  it('pages with limit and offset, the total staying the whole count', async () => {
    const total = purchaseCount();
    const page = await list('book=acme&environment=test&limit=2');
    expect(page.body.meta).toEqual({ total, limit: 2, offset: 0 });
    expect(page.body.data.map((p) => p.id)).toEqual([third.id, second.id]);
    const next = await list('book=acme&environment=test&limit=2&offset=2');
    expect(next.body.meta).toEqual({ total, limit: 2, offset: 2 });
    expect(next.body.data[0]!.id).toBe(first.id);
    expect((await list(`book=acme&environment=test&offset=${total}`)).body).toMatchObject({ data: [], meta: { total } });
  });

  it('shows the withholdings issued for each purchase, with their numero, state and total', async () => {
    const res = await rig.agent.fetch(`/api/v1/purchases/${second.id}/withhold`, {
      method: 'POST',
      headers: fiscalHeaders(rig.agent.testKey),
      body: JSON.stringify({
        external_ref: 'RET-ADM-1',
        issue_date: ecuadorDate(new Date()),
        lines: [
          { tax: 'renta', code: '312', base: '120.00', rate: '1.75' },
          { tax: 'iva', code: '1', base: '15.00', rate: '30' },
        ],
      }),
    });
    const issued = (await res.json()) as { data: Issued };
    expect(res.status, JSON.stringify(issued)).toBe(201);
    await comprobanteClient(rig, '/api/v1/withholdings').waitFor(issued.data.id, ['authorized']);

    const { body } = await list('book=acme&environment=test&limit=3');
    const [t, s, f] = body.data as [Item, Item, Item];
    expect(s.withholdings).toEqual([{ id: issued.data.id, numero: issued.data.numero, status: 'authorized', grand_total: '6.60' }]);
    expect(t.withholdings).toEqual([]);
    expect(f.withholdings).toEqual([]);
    // …and in the answer of a purchase recorded again.
    const again = await record({ book: 'acme', environment: 'test', access_key: second.access_key });
    expect(again.status).toBe(200);
    expect(again.body.data.withholdings).toEqual(s.withholdings);
  });

  it('refuses a bad query with a 400 in Spanish naming the parameter', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['environment=prod', 'environment', /"environment" debe ser live o test/],
      ['limit=0', 'limit', /"limit" debe ser un número entero entre 1 y 200/],
      ['limit=201', 'limit', /"limit" debe ser un número entero entre 1 y 200/],
      ['limit=diez', 'limit', /"limit" debe ser un número entero/],
      ['offset=-1', 'offset', /"offset" debe ser un número entero entre 0 y/],
      ['offset=1.5', 'offset', /"offset" debe ser un número entero/],
      ['book=acme', 'book', /"book" se indica una sola vez/],
    ];
    for (const [query, name, message] of cases) {
      const { status, body } = await list(`book=acme&${query}`);
      expect(status, query).toBe(400);
      expect(body.error?.code, query).toBe('invalid_query');
      expect(body.error?.message, query).toMatch(message);
      expect(Object.keys(body.errors ?? {}), query).toEqual([name]);
    }
  });
});

describe('without the admin session', () => {
  it('is 401, with no cookie or token and with a book’s key; nothing is recorded', async () => {
    const before = purchaseCount();
    const withoutSession: Array<Record<string, string>> = [{}, { Authorization: `Bearer ${rig.agent.testKey}` }];
    for (const headers of withoutSession) {
      expect((await rig.agent.fetch('/admin/api/fiscal/purchases?book=acme&environment=test', { headers })).status).toBe(401);
      const post = await rig.agent.fetch('/admin/api/fiscal/purchases', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ book: 'acme', environment: 'test', access_key: '1'.repeat(49) }),
      });
      expect(post.status).toBe(401);
    }
    expect(purchaseCount()).toBe(before);
  });
});
