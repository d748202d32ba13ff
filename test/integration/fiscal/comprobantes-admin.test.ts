/**
 * The Comprobantes screen's admin API (CONTRACT §14, §15): a real agent and the fake SRI. An
 * invoice and a credit note issued and authorized, one invoice rejected by the SRI, one held
 * in EN PROCESO: listed newest first per book and environment with their party, totals, state
 * and the SRI's word; paged; filtered by state; bad queries refused in Spanish; the RIDE a PDF
 * that names the numero; the XML the `autorizacion` once authorized, `not_ready` before; and
 * nothing for a document Sello did not issue.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sriMessages } from '../../helpers/fake-sri/index.js';
import { fiscalHeaders, invoiceBody as plainDocumentBody } from '../../helpers/documents.js';
import { comprobanteClient, CUSTOMER_CEDULA, startInvoiceRig, validInvoiceBody, type InvoiceRig } from '../../helpers/invoices.js';

interface Item {
  id: string;
  kind: string;
  doc_type: string;
  numero: string;
  access_key: string | null;
  issue_date: string;
  book: string;
  environment: string;
  party: { role: string; name: string; tax_id: string | null } | null;
  currency: string;
  grand_total: string;
  status: string;
  authorization: { number: string; date: string | null } | null;
  failure_reason: string | null;
  sri: { state: string; attempts: number; last_error: string | null };
  created_at: string;
}

interface ListBody {
  data: Item[];
  meta: { total: number; limit: number; offset: number };
  error?: { code: string; message: string };
  errors?: Record<string, string[]>;
}

let rig: InvoiceRig;
let invoice: { id: string; numero: string; access_key: string };
let note: { id: string; numero: string; access_key: string };
let rejected: { id: string; numero: string };

const admin = (path: string) => rig.agent.fetch(`/admin/api${path}`, { headers: { Authorization: `Bearer ${rig.agent.adminToken}` } });

async function list(query: string): Promise<{ status: number; body: ListBody }> {
  const res = await admin(`/fiscal/comprobantes${query ? `?${query}` : ''}`);
  return { status: res.status, body: (await res.json()) as ListBody };
}

function pdfText(pdf: Buffer): string {
  return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');
}

beforeAll(async () => {
  rig = await startInvoiceRig();
  const posted = await rig.post(rig.invoiceBody('ADM-FAC-1'));
  if (posted.status !== 201) throw new Error(`POST /api/v1/invoices: ${posted.status} ${JSON.stringify(posted.json)}`);
  invoice = posted.json.data!;
  await rig.waitForStatus(invoice.id, ['authorized']);

  const notes = comprobanteClient(rig, '/api/v1/credit-notes');
  const { payments: _payments, grand_total: _total, additional_info: _info, ...sale } = validInvoiceBody('ADM-NC-1');
  const notePosted = await notes.post({
    ...sale,
    invoice_id: invoice.id,
    lines: [{ code: 'ASE-01', description: 'Devolución de asesoría contable', quantity: '1', unit_price: '50.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }],
    reason: 'Devolución parcial',
  });
  if (notePosted.status !== 201) throw new Error(`POST /api/v1/credit-notes: ${notePosted.status} ${JSON.stringify(notePosted.json)}`);
  note = notePosted.json.data!;
  await notes.waitFor(note.id, ['authorized']);

  rig.sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.fechaExtemporanea()] });
  const bad = await rig.post(rig.invoiceBody('ADM-FAC-2'));
  rejected = bad.json.data!;
  await rig.waitForStatus(rejected.id, ['rejected']);
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

describe('GET /admin/api/fiscal/comprobantes', () => {
  it('lists what Sello issued in the book and environment, newest first, with party, totals, state and authorization', async () => {
    const { status, body } = await list('book=acme&environment=test');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.meta).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(body.data.map((c) => c.id)).toEqual([rejected.id, note.id, invoice.id]);
    const [r, n, i] = body.data as [Item, Item, Item];
    expect(i).toMatchObject({
      kind: 'invoice',
      doc_type: 'invoice',
      numero: invoice.numero,
      access_key: invoice.access_key,
      book: 'acme',
      environment: 'test',
      party: { role: 'customer', name: 'María José Núñez Peñaherrera', tax_id: CUSTOMER_CEDULA },
      currency: 'USD',
      grand_total: '135.00',
      status: 'authorized',
      authorization: { number: invoice.access_key },
      failure_reason: null,
      sri: { state: 'authorized', last_error: null },
    });
    expect(i.issue_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Date.parse(i.authorization!.date!)).not.toBeNaN();
    expect(n).toMatchObject({ kind: 'credit_note', doc_type: 'credit_note', numero: note.numero, grand_total: '57.50', status: 'authorized', party: { role: 'customer', name: 'María José Núñez Peñaherrera' } });
    expect(r).toMatchObject({ kind: 'invoice', numero: rejected.numero, status: 'rejected', authorization: null, sri: { state: 'rejected' } });
    expect(r.failure_reason).toMatch(/^65: FECHA EMISIÓN EXTEMPORANEA/);
  });

  it('takes the book by id or slug, and defaults to live', async () => {
    const byId = await list(`book=${rig.agent.book.id}&environment=test`);
    expect(byId.body.data.map((c) => c.id)).toEqual([rejected.id, note.id, invoice.id]);
    const live = await list('book=acme');
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ data: [], meta: { total: 0 } });
    const all = await list('environment=test');
    expect(all.body.meta.total).toBe(3);
    rig.agent.addBook('otro-libro');
    expect((await list('book=otro-libro&environment=test')).body).toMatchObject({ data: [], meta: { total: 0 } });
    const missing = await list('book=no-existe&environment=test');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: 'No existe el libro no-existe.' });
  });

  it('pages with limit and offset, the total staying the whole count', async () => {
    const first = await list('book=acme&environment=test&limit=2');
    expect(first.body.meta).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(first.body.data.map((c) => c.id)).toEqual([rejected.id, note.id]);
    const second = await list('book=acme&environment=test&limit=2&offset=2');
    expect(second.body.meta).toEqual({ total: 3, limit: 2, offset: 2 });
    expect(second.body.data.map((c) => c.id)).toEqual([invoice.id]);
    expect((await list('book=acme&environment=test&offset=10')).body).toMatchObject({ data: [], meta: { total: 3 } });
    expect((await list('book=acme&environment=test&limit=200')).status).toBe(200);
  });

  it('filters by state; an empty one is no filter', async () => {
    const authorized = await list('book=acme&environment=test&status=authorized');
    expect(authorized.body.meta.total).toBe(2);
    expect(authorized.body.data.map((c) => c.id)).toEqual([note.id, invoice.id]);
    const bad = await list('book=acme&environment=test&status=rejected');
    expect(bad.body.data.map((c) => c.id)).toEqual([rejected.id]);
    expect((await list('book=acme&environment=test&status=failed')).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await list('book=acme&environment=test&status=')).body.meta.total).toBe(3);
  });

  it('refuses a bad query with a 400 in Spanish naming the parameter', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['environment=prod', 'environment', /"environment" debe ser live o test/],
      ['status=aprobado', 'status', /"status" debe ser uno de pending, signed, sent, authorized, rejected, failed/],
      ['limit=0', 'limit', /"limit" debe ser un número entero entre 1 y 200/],
      ['limit=201', 'limit', /"limit" debe ser un número entero entre 1 y 200/],
      ['limit=diez', 'limit', /"limit" debe ser un número entero/],
      ['offset=-1', 'offset', /"offset" debe ser un número entero entre 0 y/],
      ['offset=1.5', 'offset', /"offset" debe ser un número entero/],
      ['limit=1&limit=2', 'limit', /"limit" se indica una sola vez/],
    ];
    for (const [query, name, message] of cases) {
      const { status, body } = await list(`book=acme&${query}`);
      expect(status, query).toBe(400);
      expect(body.error?.code, query).toBe('invalid_query');
      expect(body.error?.message, query).toMatch(message);
      expect(Object.keys(body.errors ?? {}), query).toEqual([name]);
    }
  });

  it('needs the admin session', async () => {
    expect((await rig.agent.fetch('/admin/api/fiscal/comprobantes')).status).toBe(401);
    const withKey = await rig.agent.fetch('/admin/api/fiscal/comprobantes', { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(withKey.status).toBe(401);
  });
});

describe('GET /admin/api/fiscal/comprobantes/:id/ride and /xml', () => {
  it('the RIDE is a PDF to save as <doc_type>-<numero>.pdf that prints the numero and the authorization', async () => {
    for (const doc of [invoice, note]) {
      const res = await admin(`/fiscal/comprobantes/${doc.id}/ride`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const type = doc === invoice ? 'invoice' : 'credit_note';
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${type}-${doc.numero}.pdf"`);
      const pdf = Buffer.from(await res.arrayBuffer());
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const text = pdfText(pdf);
      expect(text).toContain(doc.numero);
      expect(text).toContain(doc === invoice ? 'FACTURA' : 'NOTA DE CRÉDITO');
      expect(text).toMatch(/FECHA Y HORA DE AUTORIZACIÓN:\s+\d{2}\/\d{2}\/\d{4}/);
    }
  });

  it('the XML is the SRI’s autorizacion, AUTORIZADO, holding the comprobante', async () => {
    const res = await admin(`/fiscal/comprobantes/${invoice.id}/xml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="invoice-${invoice.numero}.xml"`);
    const xml = await res.text();
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<autorizacion>/);
    expect(xml).toContain('<estado>AUTORIZADO</estado>');
    expect(xml).toContain(`<numeroAutorizacion>${invoice.access_key}</numeroAutorizacion>`);
    expect(xml).toContain('<factura id="comprobante"');
    // The same bytes the book's key gets.
    const own = await rig.agent.fetch(`/api/v1/invoices/${invoice.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(await own.text()).toBe(xml);
    const noteXml = await (await admin(`/fiscal/comprobantes/${note.id}/xml`)).text();
    expect(noteXml).toContain('<notaCredito id="comprobante"');
  });

  it('a rejected comprobante has its RIDE but no XML', async () => {
    expect((await admin(`/fiscal/comprobantes/${rejected.id}/ride`)).status).toBe(200);
    const res = await admin(`/fiscal/comprobantes/${rejected.id}/xml`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as ListBody).error).toMatchObject({ code: 'not_ready' });
  });

  it('before the authorization: listed as sent, its RIDE without authorization, its XML 404 not_ready', async () => {
    rig.sri.setPolicy('autorizacion', { kind: 'en-proceso' });
    try {
      const { status, json } = await rig.post(rig.invoiceBody('ADM-FAC-3'));
      expect(status, JSON.stringify(json)).toBe(201);
      const held = json.data!;
      await rig.waitForStatus(held.id, ['sent']);
      const listed = (await list('book=acme&environment=test&limit=1')).body.data[0]!;
      expect(listed).toMatchObject({ id: held.id, status: 'sent', authorization: null, sri: { state: 'sent' } });
      const xml = await admin(`/fiscal/comprobantes/${held.id}/xml`);
      expect(xml.status).toBe(404);
      const error = ((await xml.json()) as ListBody).error!;
      expect(error.code).toBe('not_ready');
      expect(error.message).toBe(`El comprobante ${held.numero} todavía no está autorizado por el SRI: su XML de autorización llega con la autorización.`);
      const ride = await admin(`/fiscal/comprobantes/${held.id}/ride`);
      expect(ride.status).toBe(200);
      const text = pdfText(Buffer.from(await ride.arrayBuffer()));
      expect(text).toContain(held.numero);
      expect(text).toMatch(/FECHA Y HORA DE AUTORIZACIÓN:\s+PENDIENTE/);

      rig.sri.setPolicy('autorizacion', { kind: 'normal' });
      await rig.waitForStatus(held.id, ['authorized']);
      expect((await admin(`/fiscal/comprobantes/${held.id}/xml`)).status).toBe(200);
    } finally {
      rig.sri.setPolicy('autorizacion', { kind: 'normal' });
    }
  });

  it('a document Sello did not issue, or no document: 404 in Spanish', async () => {
    const res = await rig.agent.fetch('/api/v1/documents', { method: 'POST', headers: fiscalHeaders(rig.agent.testKey), body: JSON.stringify(plainDocumentBody({ external_ref: 'ADM-ERP-1' })) });
    expect(res.status).toBe(201);
    const plain = ((await res.json()) as { data: { id: string } }).data;
    for (const id of [plain.id, 'doc_no_existe']) {
      for (const what of ['ride', 'xml']) {
        const answer = await admin(`/fiscal/comprobantes/${id}/${what}`);
        expect(answer.status, `${id} ${what}`).toBe(404);
        expect(((await answer.json()) as ListBody).error).toEqual({ code: 'not_found', message: `El documento ${id} no es un comprobante emitido por Sello.` });
      }
    }
    // …nor is it listed.
    expect((await list('book=acme&environment=test&limit=200')).body.data.map((c) => c.id)).not.toContain(plain.id);
  });
});
