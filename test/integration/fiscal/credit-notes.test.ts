/**
 * `POST /api/v1/credit-notes` end to end (CONTRACT §15, issue 18 point 1): a real agent, the
 * issuer of the invoice rig, and the fake SRI, which checks every comprobante with xmllint (the
 * notaCredito 1.1.0 XSD) and xmlsec1 (the XAdES signature). A note names the invoice it modifies
 * by its Sello id or by numero and date, and never takes more than what is left of it.
 */
import { verify } from '@octokit/webhooks-methods';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { sriMessages } from '../../helpers/fake-sri/index.js';
import { fiscalHeaders } from '../../helpers/documents.js';
import { comprobanteClient, CUSTOMER_CEDULA, startInvoiceRig, startWebhookRig, storeCounts, validInvoiceBody, type InvoiceAnswer, type InvoiceRig, type WebhookRig } from '../../helpers/invoices.js';
import type { Receiver } from '../../helpers/receiver.js';

const SECRET = 'un-secreto-de-notas';

let live: WebhookRig;
let rig: InvoiceRig;
let receiver: Receiver;

beforeAll(async () => {
  live = await startWebhookRig(SECRET);
  ({ rig, receiver } = live);
});

afterAll(async () => {
  await live?.close();
});

let ref = 0;
const nextRef = (prefix = 'NC') => `${prefix}-${++ref}`;

/** A credit note body for the rig's customer: 1 × 50.00 at 15 % (57.50), modifying `target`. */
function noteBody(target: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { payments: _payments, grand_total: _total, additional_info: _info, ...sale } = validInvoiceBody(nextRef());
  return {
    ...sale,
    lines: [{ code: 'ASE-01', description: 'Devolución de asesoría contable', quantity: '1', unit_price: '50.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }],
    reason: 'Devolución parcial: una asesoría no prestada',
    ...target,
    ...overrides,
  };
}

const notes = () => comprobanteClient(rig, '/api/v1/credit-notes');
const postNote = (body: unknown, key?: string) => notes().post(body, key);
const getNote = (id: string, key?: string) => notes().get(id, key);
const waitForNote = (id: string, statuses: string[], key?: string) => notes().waitFor(id, statuses, key);

/** An authorized invoice of the rig (135.00 by default). */
async function authorizedInvoice(key = rig.agent.testKey, overrides: Record<string, unknown> = {}): Promise<{ id: string; numero: string; issue_date: string }> {
  const { status, json } = await rig.post(rig.invoiceBody(nextRef('FAC'), overrides), key);
  expect(status, JSON.stringify(json)).toBe(201);
  await rig.waitForStatus(json.data!.id, ['authorized'], { key });
  return json.data as unknown as { id: string; numero: string; issue_date: string };
}

const bookState = () => storeCounts(rig.agent);

describe('a credit note from POST to AUTORIZADO', () => {
  it('modifies an invoice by its Sello id: numbered in its own series, signed, authorized, its XML the SRI’s notaCredito', async () => {
    const invoice = await authorizedInvoice();
    const { status, json, headers } = await postNote(noteBody({ invoice_id: invoice.id }));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(headers.get('location')).toBe(`/api/v1/credit-notes/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'credit_note', country: 'EC', status: 'pending', grand_total: '57.50', environment: 'test' });
    expect(doc.access_key.slice(8, 10)).toBe('04'); // codDoc of the nota de crédito
    expect(doc.numero).toMatch(/^001-001-\d{9}$/);

    const done = await waitForNote(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    const sent = rig.sri.calls.filter((c) => c.service === 'recepcion' && c.accessKey === doc.access_key);
    expect(sent.map((c) => c.answer?.estado)).toEqual(['RECIBIDA']);
    expect(done).toMatchObject({
      credit_note: {
        modified: { doc_type: 'invoice', numero: invoice.numero, issue_date: invoice.issue_date, invoice_id: invoice.id },
        reason: 'Devolución parcial: una asesoría no prestada',
        grand_total: '57.50',
      },
    });

    const xmlRes = await rig.agent.fetch(`/api/v1/credit-notes/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(xmlRes.status).toBe(200);
    const autorizacion = await xmlRes.text();
    expect(autorizacion).toContain('<estado>AUTORIZADO</estado>');
    const comprobante = /<comprobante><!\[CDATA\[([\s\S]*?)\]\]><\/comprobante>/.exec(autorizacion)![1]!;
    expect(comprobante).toContain('<notaCredito id="comprobante" version="1.1.0">');
    expect(comprobante).toContain(`<numDocModificado>${invoice.numero}</numDocModificado>`);
    expect(comprobante).toContain('<valorModificacion>57.50</valorModificacion>');
    expect((await verifyXadesBes(Buffer.from(comprobante, 'utf8'))).valid).toBe(true);

    // The invoice's own routes do not answer for a note, nor the note's for an invoice.
    expect((await rig.get(doc.id)).status).toBe(404);
    expect((await getNote(invoice.id)).status).toBe(404);
  });

  it('a live note: ambiente 2 and one document.authorized webhook with doc_type credit_note', async () => {
    const invoice = await authorizedInvoice(rig.agent.liveKey);
    const before = receiver.requests.length;
    const { status, json } = await postNote(noteBody({ invoice_id: invoice.id }), rig.agent.liveKey);
    expect(status, JSON.stringify(json)).toBe(201);
    await waitForNote(json.data!.id, ['authorized'], rig.agent.liveKey);
    await receiver.waitFor((r) => r.some((h) => JSON.parse(h.rawBody.toString('utf8')).document.id === json.data!.id));
    const hooks = receiver.requests.slice(before).filter((h) => JSON.parse(h.rawBody.toString('utf8')).document.id === json.data!.id);
    expect(hooks).toHaveLength(1);
    const raw = hooks[0]!.rawBody.toString('utf8');
    expect(await verify(SECRET, raw, String(hooks[0]!.headers['x-service-signature']))).toBe(true);
    expect(JSON.parse(raw)).toMatchObject({ event: 'document.authorized', document: { doc_type: 'credit_note', grand_total: '57.50', status: 'authorized' } });
  });

  it('names an invoice by numero and date, Sello’s or another system’s', async () => {
    const invoice = await authorizedInvoice();
    const own = await postNote(noteBody({ modified: { numero: invoice.numero, issue_date: invoice.issue_date } }));
    expect(own.status, JSON.stringify(own.json)).toBe(201);
    expect((await waitForNote(own.json.data!.id, ['authorized'])).credit_note).toMatchObject({ modified: { invoice_id: invoice.id } });

    const elsewhere = await postNote(noteBody({ modified: { numero: '002-001-000000777', issue_date: invoice.issue_date } }));
    expect(elsewhere.status, JSON.stringify(elsewhere.json)).toBe(201);
    const done = await waitForNote(elsewhere.json.data!.id, ['authorized']);
    expect(done.credit_note).toMatchObject({ modified: { numero: '002-001-000000777', invoice_id: null } });
  });

  it('its RIDE says NOTA DE CRÉDITO, names the invoice and the reason, and its barcode reads as the access key', async () => {
    const invoice = await authorizedInvoice();
    const { json } = await postNote(noteBody({ invoice_id: invoice.id }));
    const doc = json.data!;
    await waitForNote(doc.id, ['authorized']);
    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ride-nc-'));
    const file = path.join(dir, 'ride.pdf');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('NOTA DE CRÉDITO');
    expect(text).toContain(doc.numero);
    expect(text).toContain(invoice.numero);
    expect(text).toContain('Devolución parcial');
    expect(text.replace(/\s+/g, '')).toContain(doc.access_key);
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    const read = execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' });
    expect(read.trim()).toBe(doc.access_key);
  });
});

describe('what is left of the invoice', () => {
  it('notes add up to the invoice’s total and no further; a refused one takes no number', async () => {
    const invoice = await authorizedInvoice(); // 135.00
    const first = await postNote(noteBody({ invoice_id: invoice.id, lines: [{ code: 'ASE-01', description: 'Devolución', quantity: '2', unit_price: '50.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }] }));
    expect(first.status, JSON.stringify(first.json)).toBe(201); // 115.00: 20.00 left
    const before = bookState();
    const over = await postNote(noteBody({ invoice_id: invoice.id })); // 57.50
    expect(over.status).toBe(422);
    expect(over.json.errors?.lines?.[0]).toBe(`la nota de crédito suma 57.50 y a la factura ${invoice.numero} (total 135.00) le quedan 20.00 por acreditar`);
    const stated = await postNote(noteBody({ invoice_id: invoice.id, grand_total: '57.50' }));
    expect(stated.status).toBe(422);
    expect(Object.keys(stated.json.errors ?? {})).toEqual(['grand_total']);
    expect(bookState()).toEqual(before);

    const rest = await postNote(noteBody({ invoice_id: invoice.id, lines: [{ code: 'LIB-02', description: 'Devolución del libro', quantity: '1', unit_price: '20.00', discount: '0.00', taxes: [{ type: 'ec-iva-0' }] }] }));
    expect(rest.status, JSON.stringify(rest.json)).toBe(201);
    // Numbered right after the first note: the refusals took no number.
    expect(Number(rest.json.data!.numero.slice(8))).toBe(Number(first.json.data!.numero.slice(8)) + 1);
    const none = await postNote(noteBody({ invoice_id: invoice.id, lines: [{ code: 'X', description: 'Un centavo', quantity: '1', unit_price: '0.01', discount: '0.00', taxes: [{ type: 'ec-iva-0' }] }] }));
    expect(none.status).toBe(422);
    expect(none.json.errors?.lines?.[0]).toContain('le quedan 0.00 por acreditar');
  });

  it('a rejected note gives its amount back', async () => {
    const invoice = await authorizedInvoice();
    rig.sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [sriMessages.firmaInvalida('La firma es inválida')] });
    const whole = await postNote(noteBody({ invoice_id: invoice.id, lines: [{ code: 'TODO', description: 'Anulación', quantity: '1', unit_price: '135.00', discount: '0.00', taxes: [{ type: 'ec-iva-0' }] }] }));
    expect(whole.status, JSON.stringify(whole.json)).toBe(201);
    expect((await waitForNote(whole.json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('rejected');
    const again = await postNote(noteBody({ invoice_id: invoice.id, lines: [{ code: 'TODO', description: 'Anulación', quantity: '1', unit_price: '135.00', discount: '0.00', taxes: [{ type: 'ec-iva-0' }] }] }));
    expect(again.status, JSON.stringify(again.json)).toBe(201);
  });
});

describe('bad notes: a clear 422, and nothing numbered or stored', () => {
  it('refuses an unknown invoice, another book’s or environment’s, and a rejected one', async () => {
    const live = await authorizedInvoice(rig.agent.liveKey);
    rig.sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [sriMessages.firmaInvalida('La firma es inválida')] });
    const refused = await rig.post(rig.invoiceBody(nextRef('FAC')));
    expect((await rig.waitForStatus(refused.json.data!.id, ['rejected'])).status).toBe('rejected');
    const before = bookState();

    const unknown = await postNote(noteBody({ invoice_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }));
    expect(unknown.status).toBe(422);
    expect(unknown.json.error?.code).toBe('validation_failed');
    expect(unknown.json.errors?.invoice_id?.[0]).toMatch(/no es una factura emitida por Sello en este libro y ambiente/);
    const foreign = await postNote(noteBody({ invoice_id: live.id })); // a live invoice, a test key
    expect(foreign.status).toBe(422);
    expect(foreign.json.errors?.invoice_id).toBeDefined();
    const rejected = await postNote(noteBody({ invoice_id: refused.json.data!.id }));
    expect(rejected.status).toBe(422);
    expect(rejected.json.errors?.invoice_id?.[0]).toContain('fue rechazada por el SRI: no hay nada que modificar');
    expect(bookState()).toEqual(before);
  });

  it('refuses a note naming no invoice or two, another customer, a wrong date, an earlier date, and a body of the wrong shape', async () => {
    const invoice = await authorizedInvoice();
    const before = bookState();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [noteBody({}), 'invoice_id', /invoice_id \(su id en Sello\) o modified/],
      [noteBody({ invoice_id: invoice.id, modified: { numero: invoice.numero, issue_date: invoice.issue_date } }), 'invoice_id', /uno de los dos/],
      [noteBody({ invoice_id: invoice.id, customer: { ...(validInvoiceBody('x').customer as object), tax_id: '0926687856' } }), 'customer.tax_id', new RegExp(`es de ${CUSTOMER_CEDULA}`)],
      [noteBody({ modified: { numero: invoice.numero, issue_date: '2024-01-02' } }), 'modified.issue_date', /es del/],
      [noteBody({ modified: { numero: '1-1-7', issue_date: invoice.issue_date } }), 'modified.numero', /001-001-000000123/],
      [noteBody({ modified: { numero: '002-001-000000778', issue_date: '2099-01-01' } }), 'issue_date', /anterior a la factura que modifica/],
      [noteBody({ invoice_id: invoice.id, reason: '' }), 'reason', /no puede estar vacío/],
      [noteBody({ invoice_id: invoice.id, payments: [{ method: '01', amount: '57.50' }] }), 'payments', /./],
      [noteBody({ invoice_id: invoice.id, lines: [] }), 'lines', /la nota de crédito necesita al menos una línea/],
    ];
    for (const [body, field, message] of cases) {
      const { status, json } = await postNote(body);
      expect(status, `${field}: ${JSON.stringify(json)}`).toBe(422);
      expect(json.errors?.[field]?.join(' '), `${field}: ${JSON.stringify(json)}`).toMatch(message);
    }
    expect(bookState()).toEqual(before);
  });

  it('without an issuer: 422 emisor_not_configured', async () => {
    const bare = await startInvoiceRig({ noIssuer: true });
    try {
      const { status, json } = await (async () => {
        const res = await bare.agent.fetch('/api/v1/credit-notes', { method: 'POST', headers: fiscalHeaders(bare.agent.testKey), body: JSON.stringify(noteBody({ modified: { numero: '001-001-000000001', issue_date: '2020-01-01' } })) });
        return { status: res.status, json: (await res.json()) as InvoiceAnswer['json'] };
      })();
      expect(status).toBe(422);
      expect(json.error?.code).toBe('emisor_not_configured');
    } finally {
      await bare.close();
    }
  });

  it('is idempotent by external_ref: the same body replays, another one is refused', async () => {
    const invoice = await authorizedInvoice();
    const body = noteBody({ invoice_id: invoice.id });
    const first = await postNote(body);
    expect(first.status).toBe(201);
    const again = await postNote(body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data!.id).toBe(first.json.data!.id);
    const other = await postNote({ ...body, reason: 'Otra razón' });
    expect(other.status).toBe(422);
    expect(other.json.errors?.external_ref?.[0]).toMatch(/otro contenido/);
  });
});
