/**
 * `POST /api/v1/remission-guides` end to end (CONTRACT §15, issue 18 point 2): goods moved by a
 * carrier to recipients, guiaRemision 1.1.0 checked by the fake SRI with xmllint (its XSD) and
 * xmlsec1, authorized, read back, its RIDE; a recipient's `invoice_id` becomes its supporting
 * document; and the bad bodies, each a 422 naming its field with nothing numbered or stored.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecuadorDate } from '../../../core/fiscal/sri/index.js';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { sriMessages } from '../../helpers/fake-sri/index.js';
import { comprobanteClient, CUSTOMER_CEDULA, startInvoiceRig, storeCounts, type InvoiceRig } from '../../helpers/invoices.js';

let rig: InvoiceRig;
beforeAll(async () => {
  rig = await startInvoiceRig();
});
afterAll(async () => {
  await rig?.close();
});

let ref = 0;
const today = () => ecuadorDate(new Date());

function recipient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'María José Núñez Peñaherrera',
    tax_id: CUSTOMER_CEDULA,
    tax_id_type: { type: 'ec-cedula', code: '05' },
    address: 'Calle Sucre 1-23 y Bolívar, Cuenca',
    reason: 'Venta',
    route: 'Quito – Cuenca por la Panamericana',
    goods: [
      { code: 'LIB-02', description: 'Libro de contabilidad básica', quantity: '10' },
      { code: 'ARC-01', description: 'Archivadores A-Z', quantity: '24', additional_code: 'AZ-24' },
    ],
    ...overrides,
  };
}

function guideBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_ref: `GR-${++ref}`,
    issue_date: today(),
    establishment: '001',
    emission_point: '001',
    departure_address: 'Av. Amazonas N34-451 y Atahualpa, Quito',
    carrier: { name: 'Transportes del Sur Cía. Ltda.', tax_id: '1790011674001', tax_id_type: { type: 'ec-ruc', code: '06' } },
    plate: 'PBA-1234',
    transport_start: today(),
    transport_end: today(),
    recipients: [recipient()],
    ...overrides,
  };
}

const client = () => comprobanteClient(rig, '/api/v1/remission-guides');
const post = (body: unknown) => client().post(body);
const waitFor = (id: string, statuses: string[]) => client().waitFor(id, statuses);

describe('a remission guide from POST to AUTORIZADO', () => {
  it('is numbered in its own series, authorized, its XML the SRI’s guiaRemision, the invoice its recipient’s supporting document', async () => {
    const sale = await rig.post(rig.invoiceBody(`FAC-GR-${++ref}`));
    await rig.waitForStatus(sale.json.data!.id, ['authorized']);
    const invoice = sale.json.data!;
    const second = recipient({ name: 'Bodega Central', tax_id: '1792146739001', tax_id_type: { type: 'ec-ruc', code: '06' }, reason: 'Traslado entre establecimientos', destination_establishment: '002', route: undefined, goods: [{ code: 'PAP-1', description: 'Resmas de papel & sobres <A4>', quantity: '50' }] });
    const { status, json, headers } = await post(guideBody({ recipients: [recipient({ invoice_id: invoice.id }), second] }));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(headers.get('location')).toBe(`/api/v1/remission-guides/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'remission_guide', grand_total: '0.00', currency: 'USD', numero: '001-001-000000001' });
    expect(doc.access_key.slice(8, 10)).toBe('06');

    const done = await waitFor(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(done).toMatchObject({
      remission_guide: {
        carrier: { name: 'Transportes del Sur Cía. Ltda.', sri_id_code: '04' },
        plate: 'PBA-1234',
        recipients: [
          { support_document: { type: '01', numero: invoice.numero, authorization_number: invoice.access_key, invoice_id: invoice.id }, goods: [{ code: 'LIB-02', quantity: '10' }, { code: 'ARC-01', additional_code: 'AZ-24' }] },
          { name: 'Bodega Central', support_document: null, destination_establishment: '002' },
        ],
      },
    });

    const autorizacion = await (await rig.agent.fetch(`/api/v1/remission-guides/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } })).text();
    const comprobante = /<comprobante><!\[CDATA\[([\s\S]*?)\]\]><\/comprobante>/.exec(autorizacion)![1]!;
    expect(comprobante).toContain('<guiaRemision id="comprobante" version="1.1.0">');
    expect(comprobante).toContain(`<numDocSustento>${invoice.numero}</numDocSustento>`);
    expect(comprobante).toContain(`<numAutDocSustento>${invoice.access_key}</numAutDocSustento>`);
    expect((await verifyXadesBes(Buffer.from(comprobante, 'utf8'))).valid).toBe(true);

    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ride-gr-'));
    const file = path.join(dir, 'ride.pdf');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('GUÍA DE REMISIÓN');
    expect(text).toContain('PBA-1234');
    expect(text).toContain('Bodega Central');
    expect(text).toContain(invoice.numero);
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    expect(execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' }).trim()).toBe(doc.access_key);
  });
});

describe('bad remission guides: a clear 422, and nothing numbered or stored', () => {
  it('refuses what names its field', async () => {
    rig.sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [sriMessages.firmaInvalida('La firma es inválida')] });
    const refused = await rig.post(rig.invoiceBody(`FAC-GR-${++ref}`));
    await rig.waitForStatus(refused.json.data!.id, ['rejected']);
    const before = storeCounts(rig.agent);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [guideBody({ transport_start: today(), transport_end: yesterday }), 'transport_end', /./],
      [guideBody({ recipients: [] }), 'recipients', /al menos un destinatario/],
      [guideBody({ recipients: [recipient({ goods: [] })] }), 'recipients[0].goods', /al menos un bien/],
      [guideBody({ recipients: [recipient({ invoice_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })] }), 'recipients[0].invoice_id', /no es una factura emitida por Sello/],
      [guideBody({ recipients: [recipient({ invoice_id: refused.json.data!.id })] }), 'recipients[0].invoice_id', /fue rechazada por el SRI/],
      [guideBody({ recipients: [recipient({ goods: [{ code: 'X', description: 'Nada', quantity: '0' }] })] }), 'recipients[0].goods[0].quantity', /mayor que cero/],
      [guideBody({ carrier: { name: 'Consumidor', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } } }), 'carrier.tax_id_type.type', /./],
      [guideBody({ plate: '' }), 'plate', /no puede estar vacío/],
      [guideBody({ emission_point: '009' }), 'emission_point', /no tiene el punto de emisión 009/],
    ];
    for (const [body, field, message] of cases) {
      const { status, json } = await post(body);
      expect(status, `${field}: ${JSON.stringify(json)}`).toBe(422);
      expect(json.errors?.[field]?.join(' '), `${field}: ${JSON.stringify(json)}`).toMatch(message);
    }
    expect(storeCounts(rig.agent)).toEqual(before);
  });

  it('is idempotent by external_ref', async () => {
    const body = guideBody();
    const first = await post(body);
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const again = await post(body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data!.id).toBe(first.json.data!.id);
  });
});
