/**
 * `POST /api/v1/purchase-settlements` end to end (CONTRACT §15, issue 18 point 3): a
 * liquidación de compra numbered in its own series (codDoc 03), checked by the fake SRI with
 * xmllint (its XSD) and xmlsec1, authorized, read back, its RIDE printed with the supplier; and
 * the bad bodies, each a 422 naming its field with nothing numbered or stored.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { comprobanteClient, startInvoiceRig, storeCounts, validInvoiceBody, type InvoiceRig } from '../../helpers/invoices.js';

let rig: InvoiceRig;
beforeAll(async () => {
  rig = await startInvoiceRig();
});
afterAll(async () => {
  await rig?.close();
});

let ref = 0;
/** A purchase of 1 × 100.00 at 15 % (115.00) from a farmer with a cédula, paid in cash. */
function settlementBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { customer: _customer, additional_info: _info, grand_total: _total, ...rest } = validInvoiceBody(`LC-${++ref}`);
  return {
    ...rest,
    supplier: { name: 'Rosa Quishpe Chicaiza', tax_id: '1714307103', tax_id_type: { type: 'ec-cedula', code: '05' }, address: 'Comunidad San Pablo, Otavalo' },
    lines: [{ code: 'MAIZ-1', description: 'Maíz seco, quintal', quantity: '4', unit_price: '25.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] }],
    payments: [{ method: '01', amount: '115.00' }],
    ...overrides,
  };
}

const client = () => comprobanteClient(rig, '/api/v1/purchase-settlements');
const post = (body: unknown) => client().post(body);
const waitFor = (id: string, statuses: string[]) => client().waitFor(id, statuses);

describe('a purchase settlement from POST to AUTORIZADO', () => {
  it('is numbered in its own series, authorized, its XML the SRI’s liquidacionCompra, its RIDE naming the supplier', async () => {
    const { status, json, headers } = await post(settlementBody());
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(headers.get('location')).toBe(`/api/v1/purchase-settlements/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'purchase_invoice', grand_total: '115.00', numero: '001-001-000000001' });
    expect(doc.access_key.slice(8, 10)).toBe('03');
    const done = await waitFor(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(done).toMatchObject({ purchase_settlement: { supplier: { name: 'Rosa Quishpe Chicaiza', sri_id_code: '05' }, grand_total: '115.00', payments: [{ method: '01', amount: '115.00' }] } });
    expect(done).not.toHaveProperty('purchase_settlement.tip');

    const autorizacion = await (await rig.agent.fetch(`/api/v1/purchase-settlements/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } })).text();
    const comprobante = /<comprobante><!\[CDATA\[([\s\S]*?)\]\]><\/comprobante>/.exec(autorizacion)![1]!;
    expect(comprobante).toContain('<liquidacionCompra id="comprobante" version="1.1.0">');
    expect(comprobante).toContain('<razonSocialProveedor>Rosa Quishpe Chicaiza</razonSocialProveedor>');
    expect((await verifyXadesBes(Buffer.from(comprobante, 'utf8'))).valid).toBe(true);

    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ride-lc-'));
    const file = path.join(dir, 'ride.pdf');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toMatch(/LIQUIDACIÓN DE COMPRA/);
    expect(text).toContain('Rosa Quishpe Chicaiza');
    expect(text).toContain(doc.numero);
    expect(text).not.toContain('PROPINA');
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    expect(execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' }).trim()).toBe(doc.access_key);
  });

  it('without payments is accepted too (the XSD’s pagos are optional)', async () => {
    const { status, json } = await post(settlementBody({ payments: undefined }));
    expect(status, JSON.stringify(json)).toBe(201);
    expect((await waitFor(json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
  });
});

describe('bad purchase settlements: a clear 422, and nothing numbered or stored', () => {
  it('refuses what names its field', async () => {
    const before = storeCounts(rig.agent);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [settlementBody({ supplier: { name: 'Consumidor', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } } }), 'supplier.tax_id_type.type', /no es un consumidor final/],
      [settlementBody({ supplier: { name: 'Rosa', tax_id: '1714307104', tax_id_type: { type: 'ec-cedula', code: '05' } } }), 'supplier.tax_id', /dígito verificador/],
      [settlementBody({ supplier: undefined, customer: { name: 'Rosa', tax_id: '1714307103', tax_id_type: { type: 'ec-cedula', code: '05' } } }), 'supplier', /es obligatorio/],
      [settlementBody({ lines: [{ code: 'WH', description: 'Whisky', quantity: '1', unit_price: '20', discount: '0', taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75' }] }] }), 'lines[0].taxes[1].type', /solo lleva IVA/],
      [settlementBody({ payments: [{ method: '01', amount: '100.00' }] }), 'payments', /no coincide con el total de la liquidación de compra, 115\.00/],
      [settlementBody({ establishment: '009' }), 'establishment', /no tiene el establecimiento 009/],
    ];
    for (const [body, field, message] of cases) {
      const { status, json } = await post(body);
      expect(status, `${field}: ${JSON.stringify(json)}`).toBe(422);
      expect(json.errors?.[field]?.join(' '), `${field}: ${JSON.stringify(json)}`).toMatch(message);
    }
    expect(storeCounts(rig.agent)).toEqual(before);
  });

  it('is idempotent by external_ref', async () => {
    const body = settlementBody();
    const first = await post(body);
    const again = await post(body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data!.id).toBe(first.json.data!.id);
  });
});
