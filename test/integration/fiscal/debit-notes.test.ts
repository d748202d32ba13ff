/**
 * `POST /api/v1/debit-notes` end to end (CONTRACT §15, issue 18 point 1): the charges on top of
 * an invoice as reasons with their taxes, notaDebito 1.0.0 checked by the fake SRI with xmllint
 * (its XSD) and xmlsec1 (its signature), a webhook for a live one, its RIDE; and the bad bodies,
 * each a 422 that names its field and leaves nothing numbered or stored.
 */
import { verify } from '@octokit/webhooks-methods';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { sriMessages } from '../../helpers/fake-sri/index.js';
import { comprobanteClient, startWebhookRig, storeCounts, validInvoiceBody, type InvoiceRig, type WebhookRig } from '../../helpers/invoices.js';
import type { Receiver } from '../../helpers/receiver.js';

const SECRET = 'un-secreto-de-notas-de-debito';

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
const nextRef = (prefix = 'ND') => `${prefix}-${++ref}`;

/** Interest (0.66 at 0 %) and collection costs (15.65 at 15 %): 18.66, as the SRI's own sample. */
function noteBody(target: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { payments: _payments, grand_total: _total, additional_info: _info, lines: _lines, ...header } = validInvoiceBody(nextRef());
  return {
    ...header,
    reasons: [
      { reason: 'Intereses por mora', amount: '0.66', taxes: [{ type: 'ec-iva-0' }] },
      { reason: 'Gastos de cobranza', amount: '15.65', taxes: [{ type: 'ec-iva-15' }] },
    ],
    ...target,
    ...overrides,
  };
}

const notes = () => comprobanteClient(rig, '/api/v1/debit-notes');
const postNote = (body: unknown, key?: string) => notes().post(body, key);
const waitForNote = (id: string, statuses: string[], key?: string) => notes().waitFor(id, statuses, key);

async function authorizedInvoice(key = rig.agent.testKey): Promise<{ id: string; numero: string; issue_date: string }> {
  const { status, json } = await rig.post(rig.invoiceBody(nextRef('FAC')), key);
  expect(status, JSON.stringify(json)).toBe(201);
  await rig.waitForStatus(json.data!.id, ['authorized'], { key });
  return json.data as unknown as { id: string; numero: string; issue_date: string };
}

describe('a debit note from POST to AUTORIZADO', () => {
  it('charges on an invoice: numbered in its own series, authorized, its XML the SRI’s notaDebito with the motivos', async () => {
    const invoice = await authorizedInvoice();
    const { status, json, headers } = await postNote(noteBody({ invoice_id: invoice.id }));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(headers.get('location')).toBe(`/api/v1/debit-notes/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'debit_note', status: 'pending', grand_total: '18.66' });
    expect(doc.access_key.slice(8, 10)).toBe('05');

    const done = await waitForNote(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(rig.sri.calls.filter((c) => c.service === 'recepcion' && c.accessKey === doc.access_key).map((c) => c.answer?.estado)).toEqual(['RECIBIDA']);
    expect(done).toMatchObject({
      debit_note: {
        reasons: [
          { reason: 'Intereses por mora', amount: '0.66' },
          { reason: 'Gastos de cobranza', amount: '15.65' },
        ],
        subtotal: '16.31',
        grand_total: '18.66',
        payments: [],
        modified: { numero: invoice.numero, invoice_id: invoice.id },
      },
    });

    const autorizacion = await (await rig.agent.fetch(`/api/v1/debit-notes/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } })).text();
    const comprobante = /<comprobante><!\[CDATA\[([\s\S]*?)\]\]><\/comprobante>/.exec(autorizacion)![1]!;
    expect(comprobante).toContain('<notaDebito id="comprobante" version="1.0.0">');
    expect(comprobante).toContain('<motivo><razon>Gastos de cobranza</razon><valor>15.65</valor></motivo>');
    expect((await verifyXadesBes(Buffer.from(comprobante, 'utf8'))).valid).toBe(true);
  });

  it('a live note with payments: ambiente 2, one document.authorized webhook with doc_type debit_note', async () => {
    const invoice = await authorizedInvoice(rig.agent.liveKey);
    const { status, json } = await postNote(noteBody({ invoice_id: invoice.id, payments: [{ method: '20', amount: '18.66' }] }), rig.agent.liveKey);
    expect(status, JSON.stringify(json)).toBe(201);
    await waitForNote(json.data!.id, ['authorized'], rig.agent.liveKey);
    const mine = () => receiver.requests.filter((h) => JSON.parse(h.rawBody.toString('utf8')).document.id === json.data!.id);
    await receiver.waitFor(() => mine().length > 0);
    expect(mine()).toHaveLength(1);
    const raw = mine()[0]!.rawBody.toString('utf8');
    expect(await verify(SECRET, raw, String(mine()[0]!.headers['x-service-signature']))).toBe(true);
    expect(JSON.parse(raw)).toMatchObject({ event: 'document.authorized', document: { doc_type: 'debit_note', grand_total: '18.66' } });
  });

  it('its RIDE says NOTA DE DÉBITO, names the invoice, lists the reasons, and its barcode reads as the access key', async () => {
    const invoice = await authorizedInvoice();
    const { json } = await postNote(noteBody({ modified: { numero: invoice.numero, issue_date: invoice.issue_date } }));
    const doc = json.data!;
    await waitForNote(doc.id, ['authorized']);
    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ride-nd-'));
    const file = path.join(dir, 'ride.pdf');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('NOTA DE DÉBITO');
    expect(text).toContain(invoice.numero);
    expect(text).toContain('Gastos de cobranza');
    expect(text).toContain('18.66');
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    expect(execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' }).trim()).toBe(doc.access_key);
  });
});

describe('bad debit notes: a clear 422, and nothing numbered or stored', () => {
  it('refuses what names its field', async () => {
    const invoice = await authorizedInvoice();
    const live = await authorizedInvoice(rig.agent.liveKey);
    rig.sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [sriMessages.firmaInvalida('La firma es inválida')] });
    const refused = await rig.post(rig.invoiceBody(nextRef('FAC')));
    await rig.waitForStatus(refused.json.data!.id, ['rejected']);
    const before = storeCounts(rig.agent);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [noteBody({}), 'invoice_id', /uno de los dos/],
      [noteBody({ invoice_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }), 'invoice_id', /no es una factura emitida por Sello/],
      [noteBody({ invoice_id: live.id }), 'invoice_id', /no es una factura emitida por Sello en este libro y ambiente/],
      [noteBody({ invoice_id: refused.json.data!.id }), 'invoice_id', /fue rechazada por el SRI/],
      [noteBody({ invoice_id: invoice.id, customer: { ...(validInvoiceBody('x').customer as object), tax_id: '0926687856' } }), 'customer.tax_id', /una nota de débito es para el mismo cliente/],
      [noteBody({ invoice_id: invoice.id, reasons: [] }), 'reasons', /al menos una razón/],
      [noteBody({ invoice_id: invoice.id, reasons: [{ reason: 'Intereses', amount: '0.00', taxes: [{ type: 'ec-iva-0' }] }] }), 'reasons[0].amount', /mayor que cero/],
      [noteBody({ invoice_id: invoice.id, reasons: [{ reason: 'Intereses', amount: '5.00', taxes: [{ type: 'ec-iva-99' }] }] }), 'reasons[0].taxes[0].type', /no es un tipo de impuesto del catálogo/],
      [noteBody({ invoice_id: invoice.id, reasons: [{ reason: 'Intereses', amount: 5, taxes: [{ type: 'ec-iva-0' }] }] }), 'reasons[0].amount', /debe ser texto/],
      [noteBody({ invoice_id: invoice.id, payments: [{ method: '20', amount: '10.00' }] }), 'payments', /la suma de los pagos \(10\.00\) no coincide con el total de la nota de débito, 18\.66/],
      [noteBody({ invoice_id: invoice.id, grand_total: '20.00' }), 'grand_total', /18\.66/],
      [noteBody({ invoice_id: invoice.id, lines: [] }), 'lines', /./],
    ];
    for (const [body, field, message] of cases) {
      const { status, json } = await postNote(body);
      expect(status, `${field}: ${JSON.stringify(json)}`).toBe(422);
      expect(json.errors?.[field]?.join(' '), `${field}: ${JSON.stringify(json)}`).toMatch(message);
    }
    expect(storeCounts(rig.agent)).toEqual(before);
    // The refusals took no number: the next note is the series' next.
    const next = await postNote(noteBody({ invoice_id: invoice.id }));
    expect(next.status, JSON.stringify(next.json)).toBe(201);
  });

  it('is idempotent by external_ref', async () => {
    const invoice = await authorizedInvoice();
    const body = noteBody({ invoice_id: invoice.id });
    const first = await postNote(body);
    const again = await postNote(body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data!.id).toBe(first.json.data!.id);
    const other = await postNote({ ...body, reasons: [{ reason: 'Otro', amount: '1.00', taxes: [{ type: 'ec-iva-0' }] }] });
    expect(other.status).toBe(422);
    expect(other.json.errors?.external_ref?.[0]).toMatch(/otro contenido/);
  });
});
