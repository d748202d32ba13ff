/**
 * Received purchases and their withholdings end to end (CONTRACT §15, issue 18 points 4 and 5):
 * a supplier — another book of the same agent, with its own issuer — issues a factura to this
 * book's RUC and the fake SRI authorizes it; this book records it by access key (Sello asks the
 * fake's authorization service and verifies the signature) or by its XML, lists it as the
 * JSON:API `purchase`, and withholds renta and IVA from it with a comprobante de retención 2.0.0
 * that the fake SRI checks against its XSD and with xmlsec1, authorizes, and whose webhook and
 * RIDE follow. Every bad input is a 422 naming its reason, with nothing recorded or numbered.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../../core/documents/access-key.js';
import { ecuadorDate } from '../../../core/fiscal/sri/index.js';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { JSONAPI } from '../../helpers/agent.js';
import { fiscalHeaders } from '../../helpers/documents.js';
import { comprobanteClient, ISSUER_RUC, issuerBody, putIssuer, startWebhookRig, storeCounts, validInvoiceBody, type InvoiceRig, type WebhookRig } from '../../helpers/invoices.js';
import type { Receiver } from '../../helpers/receiver.js';
import { XSD_DIR } from '../../helpers/fake-sri/checks.js';
import { signedComprobante } from '../../helpers/fake-sri/sign-for-tests.js';
import { createTestPki } from '../../helpers/test-ca.js';

const SECRET = 'whsec_compras_2026';
/** The supplier: a sociedad RUC with a valid modulo-11 digit. */
const SUPPLIER_RUC = '1790011674001';

let live: WebhookRig;
let rig: InvoiceRig;
let receiver: Receiver;
/** The supplier's keys (a book of its own in each environment). */
let supplier: { test: string; live: string };

beforeAll(async () => {
  live = await startWebhookRig(SECRET);
  ({ rig, receiver } = live);
  const testBook = rig.agent.addBook('proveedor-pruebas', { environment: 'test' });
  const liveBook = rig.agent.addBook('proveedor', { environment: 'live' });
  const supplierIssuer = { ruc: SUPPLIER_RUC, razon_social: 'Distribuidora Ñandú & Cía. Ltda.', nombre_comercial: 'Ñandú' };
  await putIssuer(rig.agent, testBook.key, issuerBody(rig.testCertificateId, supplierIssuer));
  await putIssuer(rig.agent, liveBook.key, issuerBody(rig.liveCertificateId!, supplierIssuer));
  supplier = { test: testBook.key, live: liveBook.key };
});

afterAll(async () => {
  await live?.close();
});

let ref = 0;
const nextRef = (prefix: string) => `${prefix}-${++ref}`;

/** The book's issuer as the supplier's customer. */
const BUYER = { name: 'Contadores Andinos Pérez & Asociados S.A.', tax_id: ISSUER_RUC, tax_id_type: { type: 'ec-ruc', code: '06' } };

/** A factura of the supplier to `customer` (the book by default), authorized by the fake SRI: 2 × 50.00 at 15 % and 20.00 at 0 % (135.00). */
async function supplierInvoice(env: 'test' | 'live' = 'test', customer: Record<string, unknown> = BUYER): Promise<{ id: string; access_key: string; numero: string }> {
  const invoices = comprobanteClient(rig, '/api/v1/invoices');
  const key = supplier[env];
  const { status, json } = await invoices.post(validInvoiceBody(nextRef('PROV'), { customer }), key);
  expect(status, JSON.stringify(json)).toBe(201);
  const done = await invoices.waitFor(json.data!.id, ['authorized', 'rejected', 'failed'], key);
  expect(done.status, JSON.stringify(done)).toBe('authorized');
  return json.data!;
}

async function postPurchase(body: unknown, key = rig.agent.testKey) {
  const res = await rig.agent.fetch('/api/v1/purchases', { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as { data?: Record<string, unknown> & { id: string }; error?: { code: string; message: string }; errors?: Record<string, string[]> } };
}

const withholdings = () => comprobanteClient(rig, '/api/v1/withholdings');

async function withhold(purchaseId: string, body: Record<string, unknown>, key = rig.agent.testKey) {
  const res = await rig.agent.fetch(`/api/v1/purchases/${purchaseId}/withhold`, { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as { data?: Record<string, unknown> & { id: string; numero: string; access_key: string }; error?: { code: string; message: string }; errors?: Record<string, string[]> } };
}

/** Renta 312 at 1.75 % of the subtotal (120.00 → 2.10) and IVA code 1 (30 %) of its IVA (15.00 → 4.50). */
function withholdingBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_ref: nextRef('RET'),
    issue_date: ecuadorDate(new Date()),
    lines: [
      { tax: 'renta', code: '312', base: '120.00', rate: '1.75' },
      { tax: 'iva', code: '1', base: '15.00', rate: '30' },
    ],
    ...overrides,
  };
}

function purchaseCount(): number {
  return rig.agent.store.statement<[], { n: number }>('select count(*) as n from purchases').get()!.n;
}

async function jsonApiGet(pathname: string, key = rig.agent.testKey) {
  const res = await rig.agent.fetch(pathname, { headers: { Authorization: `Bearer ${key}`, Accept: JSONAPI } });
  return { status: res.status, json: (await res.json()) as { data: unknown; meta?: { page?: { total?: number } } } };
}

describe('a purchase fetched by key and withheld, end to end (live, with its webhook)', () => {
  it('records the supplier’s factura, lists it, withholds it, and the SRI authorizes the comprobante de retención', async () => {
    const invoice = await supplierInvoice('live');
    const recorded = await postPurchase({ access_key: invoice.access_key }, rig.agent.liveKey);
    expect(recorded.status, JSON.stringify(recorded.json)).toBe(201);
    const purchase = recorded.json.data!;
    expect(recorded.headers.get('location')).toBe(`/api/v1/purchases/${purchase.id}`);
    expect(purchase).toMatchObject({
      access_key: invoice.access_key,
      source: 'sri',
      doc_type: 'invoice',
      numero: invoice.numero,
      issue_date: ecuadorDate(new Date()),
      supplier: { ruc: SUPPLIER_RUC, name: 'Distribuidora Ñandú & Cía. Ltda.', trade_name: 'Ñandú' },
      buyer: { tax_id: ISSUER_RUC, tax_id_type_code: '04' },
      currency: 'USD',
      subtotal: '120.00',
      grand_total: '135.00',
      taxes: expect.arrayContaining([expect.objectContaining({ code: '2', rate_code: '4', rate: '15', base: '100.00', amount: '15.00' })]),
      payments: [{ method: '20', amount: '135.00' }],
      authorization: { number: invoice.access_key },
    });
    expect(typeof purchase.signer_name).toBe('string');

    // The same key again is the purchase already recorded.
    const again = await postPurchase({ access_key: invoice.access_key }, rig.agent.liveKey);
    expect(again.status).toBe(200);
    expect(again.json.data!.id).toBe(purchase.id);

    // The JSON:API resource: listed with its filters, and by id.
    const list = await jsonApiGet(`/api/v1/purchases?filter[supplier_ruc]=${SUPPLIER_RUC}&page[count]=true`, rig.agent.liveKey);
    expect(list.status).toBe(200);
    expect(list.json.meta?.page?.total).toBe(1);
    expect(list.json.data).toEqual([expect.objectContaining({ type: 'purchase', id: purchase.id, attributes: expect.objectContaining({ numero: invoice.numero, grand_total: '135.00' }) })]);
    expect((await jsonApiGet(`/api/v1/purchases?filter[supplier_ruc]=0990000000001`, rig.agent.liveKey)).json.data).toEqual([]);
    const one = await jsonApiGet(`/api/v1/purchases/${purchase.id}`, rig.agent.liveKey);
    expect(one.status).toBe(200);
    expect(one.json.data).toMatchObject({ type: 'purchase', id: purchase.id, attributes: { access_key: invoice.access_key } });
    // Another environment's key does not see it.
    expect((await jsonApiGet(`/api/v1/purchases/${purchase.id}`)).status).toBe(404);

    const before = receiver.requests.length;
    const issued = await withhold(purchase.id, withholdingBody(), rig.agent.liveKey);
    expect(issued.status, JSON.stringify(issued.json)).toBe(201);
    const doc = issued.json.data!;
    expect(issued.headers.get('location')).toBe(`/api/v1/withholdings/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'withholding', grand_total: '6.60', numero: '001-001-000000001', status: 'pending' });
    expect(doc.access_key.slice(8, 10)).toBe('07');
    expect(doc.access_key[23]).toBe('2');

    const done = await withholdings().waitFor(doc.id, ['authorized', 'rejected', 'failed'], rig.agent.liveKey);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(done.withholding).toMatchObject({
      fiscal_period: `${ecuadorDate(new Date()).slice(5, 7)}/${ecuadorDate(new Date()).slice(0, 4)}`,
      subject: { name: 'Distribuidora Ñandú & Cía. Ltda.', tax_id: SUPPLIER_RUC, sri_id_code: '04', related_party: false },
      purchase: { purchase_id: purchase.id, numero: invoice.numero, access_key: invoice.access_key, support_code: '01', grand_total: '135.00' },
      lines: [
        { tax: 'renta', code: '312', base: '120.00', rate: '1.75', amount: '2.10' },
        { tax: 'iva', code: '1', base: '15.00', rate: '30', amount: '4.50' },
      ],
      total_withheld: '6.60',
    });

    // The webhook: one document.authorized for the withholding, signed.
    await receiver.waitFor((r) => r.some((h) => JSON.parse(h.rawBody.toString('utf8')).document.id === doc.id));
    const hooks = receiver.requests.slice(before).filter((h) => JSON.parse(h.rawBody.toString('utf8')).document.id === doc.id);
    expect(hooks).toHaveLength(1);
    const raw = hooks[0]!.rawBody.toString('utf8');
    expect(await verify(SECRET, raw, String(hooks[0]!.headers['x-service-signature']))).toBe(true);
    expect(JSON.parse(raw)).toMatchObject({ event: 'document.authorized', document: { doc_type: 'withholding', grand_total: '6.60', status: 'authorized' } });

    // Its XML: the SRI's comprobanteRetencion 2.0.0, valid against the XSD and verifying with xmlsec1.
    const autorizacion = await (await rig.agent.fetch(`/api/v1/withholdings/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.liveKey}` } })).text();
    const comprobante = /<comprobante><!\[CDATA\[([\s\S]*?)\]\]><\/comprobante>/.exec(autorizacion)![1]!;
    expect(comprobante).toContain('<comprobanteRetencion id="comprobante" version="2.0.0">');
    expect(comprobante).toContain(`<numAutDocSustento>${invoice.access_key}</numAutDocSustento>`);
    expect(comprobante).toContain(`<numDocSustento>${invoice.numero.replace(/-/g, '')}</numDocSustento>`);
    expect(verifyXadesBes(Buffer.from(comprobante, 'utf8')).valid).toBe(true);
    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ret-'));
    const file = path.join(dir, 'retencion.xml');
    fs.writeFileSync(file, comprobante);
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', path.join(XSD_DIR, 'ComprobanteRetencion_V2.0.0.xsd'), file], { stdio: 'pipe' });
    execFileSync('xmlsec1', ['--verify', '--insecure', '--enabled-key-data', 'x509', '--enabled-reference-uris', 'same-doc', '--id-attr:id', 'comprobanteRetencion',
      '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties', '--id-attr:Id', 'http://www.w3.org/2000/09/xmldsig#:KeyInfo', file], { stdio: 'pipe' });

    // Its RIDE: readable, with the access key as a Code 128 barcode.
    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.liveApiKey } });
    expect(res.status).toBe(200);
    const pdf = path.join(dir, 'ride.pdf');
    fs.writeFileSync(pdf, Buffer.from(await res.arrayBuffer()));
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    expect(text).toContain('COMPROBANTE DE RETENCIÓN');
    expect(text).toContain(doc.numero);
    expect(text).toContain('Distribuidora Ñandú & Cía. Ltda.');
    expect(text).toContain(invoice.numero);
    expect(text).toContain('6.60');
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', pdf, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    expect(execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' }).trim()).toBe(doc.access_key);
  });
});

describe('a purchase received by e-mail (its XML)', () => {
  it('the authorized XML is recorded as the key would be; the same factura tampered is refused', async () => {
    const invoice = await supplierInvoice();
    const autorizacion = await (await rig.agent.fetch(`/api/v1/invoices/${invoice.id}/xml`, { headers: { Authorization: `Bearer ${supplier.test}` } })).text();
    expect(autorizacion).toContain('<estado>AUTORIZADO</estado>');

    const tampered = autorizacion.replace('<importeTotal>135.00</importeTotal>', '<importeTotal>13.50</importeTotal>');
    expect(tampered).not.toBe(autorizacion);
    const before = purchaseCount();
    const refused = await postPurchase({ xml: tampered });
    expect(refused.status, JSON.stringify(refused.json)).toBe(422);
    expect(refused.json.error?.code).toBe('validation_failed');
    expect(refused.json.errors?.xml?.[0]).toMatch(/firma|digest|resumen/i);
    expect(purchaseCount()).toBe(before);

    const recorded = await postPurchase({ xml: autorizacion });
    expect(recorded.status, JSON.stringify(recorded.json)).toBe(201);
    expect(recorded.json.data).toMatchObject({ source: 'xml', access_key: invoice.access_key, grand_total: '135.00', authorization: { number: invoice.access_key } });
    // By key afterwards: the same purchase, not a second one.
    const byKey = await postPurchase({ access_key: invoice.access_key });
    expect(byKey.status).toBe(200);
    expect(byKey.json.data!.id).toBe(recorded.json.data!.id);
  });
});

describe('bad purchases: a 422 naming the reason, nothing recorded', () => {
  async function refusedPurchase(body: unknown, field: string, pattern: RegExp, key = rig.agent.testKey): Promise<void> {
    const before = purchaseCount();
    const { status, json } = await postPurchase(body, key);
    expect(status, JSON.stringify(json)).toBe(422);
    expect(json.error?.code).toBe('validation_failed');
    expect(json.errors?.[field]?.join(' '), JSON.stringify(json)).toMatch(pattern);
    expect(purchaseCount()).toBe(before);
  }

  it('a key with a wrong check digit', async () => {
    const invoice = await supplierInvoice();
    const wrong = invoice.access_key.slice(0, 48) + String((Number(invoice.access_key[48]) + 1) % 10);
    await refusedPurchase({ access_key: wrong }, 'access_key', /dígito verificador/);
  });

  it('a key the SRI does not know', async () => {
    const unknown = withCheckDigit(`${ecuadorDate(new Date()).split('-').reverse().join('')}01${SUPPLIER_RUC}1001001000009999123456781`);
    await refusedPurchase({ access_key: unknown }, 'access_key', /no conoce/);
  });

  it('a key the SRI did not authorize', async () => {
    const refused = withCheckDigit(`${ecuadorDate(new Date()).split('-').reverse().join('')}01${SUPPLIER_RUC}1001001000009998123456781`);
    rig.sri.setPolicy('autorizacion', (call) =>
      call.rawBody.includes(refused) ? { kind: 'no-autorizado', mensajes: [{ identificador: '39', mensaje: 'FIRMA INVALIDA', tipo: 'ERROR' }] } : undefined,
    );
    try {
      await refusedPurchase({ access_key: refused }, 'access_key', /no autorizó.*FIRMA INVALIDA/);
    } finally {
      rig.sri.setPolicy('autorizacion', { kind: 'normal' });
    }
  });

  it('a key of the other environment, and a comprobante that is not a factura', async () => {
    const invoice = await supplierInvoice();
    const production = withCheckDigit(`${invoice.access_key.slice(0, 23)}2${invoice.access_key.slice(24, 48)}`);
    await refusedPurchase({ access_key: production }, 'access_key', /producción/);
    const creditNote = withCheckDigit(`${invoice.access_key.slice(0, 8)}04${invoice.access_key.slice(10, 48)}`);
    await refusedPurchase({ access_key: creditNote }, 'access_key', /tipo 04/);
  });

  it('a factura addressed to another RUC', async () => {
    const invoice = await supplierInvoice('test', { name: 'María José Núñez', tax_id: '1714307103', tax_id_type: { type: 'ec-cedula', code: '05' } });
    await refusedPurchase({ access_key: invoice.access_key }, 'access_key', new RegExp(`1714307103.*no al RUC del emisor de este libro \\(${ISSUER_RUC}\\)`));
  });

  it('neither or both of access_key and xml; not XML at all', async () => {
    await refusedPurchase({}, 'access_key', /uno de los dos/);
    await refusedPurchase({ access_key: '1'.repeat(49), xml: '<factura/>' }, 'access_key', /uno de los dos/);
    await refusedPurchase({ xml: 'esto no es XML' }, 'xml', /.+/);
  });

  it('a book without issuer: 422 book_not_configured', async () => {
    const bare = rig.agent.addBook('sin-emisor', { environment: 'test' });
    const { status, json } = await postPurchase({ access_key: '1'.repeat(49) }, bare.key);
    expect(status).toBe(422);
    expect(json.error?.code).toBe('book_not_configured');
  });

  it('the SRI unreachable: 503 sri_unavailable, nothing recorded', async () => {
    const invoice = await supplierInvoice();
    const before = purchaseCount();
    await rig.sri.down();
    try {
      const { status, json } = await postPurchase({ access_key: invoice.access_key });
      expect(status, JSON.stringify(json)).toBe(503);
      expect(json.error?.code).toBe('sri_unavailable');
    } finally {
      await rig.sri.up();
    }
    expect(purchaseCount()).toBe(before);
  });
});

describe('bad withholdings: 422 withholding_failed with the reasons, nothing numbered', () => {
  let purchaseId: string;
  beforeAll(async () => {
    const invoice = await supplierInvoice();
    const { json } = await postPurchase({ access_key: invoice.access_key });
    purchaseId = json.data!.id;
  });

  async function refusedWithholding(body: Record<string, unknown>, field: string, pattern: RegExp, id = purchaseId): Promise<void> {
    const before = storeCounts(rig.agent);
    const { status, json } = await withhold(id, body);
    expect(status, JSON.stringify(json)).toBe(422);
    expect(json.error?.code).toBe('withholding_failed');
    expect(json.error?.message).toMatch(/^No se pudo emitir la retención: /);
    expect(json.errors?.[field]?.join(' '), JSON.stringify(json)).toMatch(pattern);
    expect(storeCounts(rig.agent)).toEqual(before);
  }

  it('a code unknown for its tax, a rate the code does not have, a base above the purchase’s', async () => {
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'iva', code: '312', base: '15.00', rate: '30' }] }), 'lines[0].code', /no es un código de retención del IVA/);
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'renta', code: '7', base: '15.00', rate: '1' }] }), 'lines[0].code', /no es un código de retención de la renta/);
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'iva', code: '1', base: '15.00', rate: '70' }] }), 'lines[0].rate', /retiene el 30 %/);
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'renta', code: '312', base: '120.01', rate: '1.75' }] }), 'lines[0].base', /supera el subtotal de la factura \(120\.00\)/);
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'iva', code: '2', base: '15.01', rate: '70' }] }), 'lines[0].base', /supera el IVA de la factura \(15\.00\)/);
  });

  it('a date before the purchase or in the future; the same tax and code twice in one body', async () => {
    const yesterday = ecuadorDate(new Date(Date.now() - 86_400_000));
    await refusedWithholding(withholdingBody({ issue_date: yesterday }), 'issue_date', /anterior a la factura/);
    const twice = [
      { tax: 'renta', code: '312', base: '60.00', rate: '1.75' },
      { tax: 'renta', code: '312', base: '60.00', rate: '1.75' },
    ];
    await refusedWithholding(withholdingBody({ lines: twice }), 'lines[1].code', /repite/);
  });

  it('a second withholding of the same purchase and tax code', async () => {
    const first = await withhold(purchaseId, withholdingBody({ lines: [{ tax: 'renta', code: '3440', base: '120.00', rate: '2.75' }] }));
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    await refusedWithholding(withholdingBody({ lines: [{ tax: 'renta', code: '3440', base: '10.00', rate: '2.75' }] }), 'lines[0].code', new RegExp(`ya se le retuvo la renta con código 3440 en el comprobante de retención ${first.json.data!.numero}`));
    // Another code of the same purchase is still possible.
    const other = await withhold(purchaseId, withholdingBody({ lines: [{ tax: 'iva', code: '9', base: '15.00', rate: '10' }] }));
    expect(other.status, JSON.stringify(other.json)).toBe(201);
  });

  it('a withholding more than five days after the purchase (a factura received by e-mail ten days ago)', async () => {
    const pki = await createTestPki();
    try {
      const tenDaysAgo = ecuadorDate(new Date(Date.now() - 10 * 86_400_000)).split('-').reverse().join('/');
      const { xml } = await signedComprobante(
        { keyPem: pki.leaf.privateKeyPem, certPem: pki.leaf.certificatePem },
        { secuencial: '000004321', ambiente: '1', fechaEmision: tenDaysAgo, buyer: { idTypeCode: '04', taxId: ISSUER_RUC, name: 'Contadores Andinos' } },
      );
      const recorded = await postPurchase({ xml });
      expect(recorded.status, JSON.stringify(recorded.json)).toBe(201);
      expect(recorded.json.data).toMatchObject({ source: 'xml', authorization: null });
      await refusedWithholding(withholdingBody({ lines: [{ tax: 'renta', code: '312', base: '1.00', rate: '1.75' }] }), 'issue_date', /10 días después de la factura .*dentro de los 5 días/, recorded.json.data!.id);
    } finally {
      await pki.cleanup();
    }
  });

  it('an unknown purchase, or one of another book: 404', async () => {
    const res = await withhold('00000000-0000-4000-8000-000000000000', withholdingBody());
    expect(res.status).toBe(404);
    expect((await withhold(purchaseId, withholdingBody(), rig.agent.liveKey)).status).toBe(404);
  });

  it('a body that is not a withholding: 422 validation_failed by field', async () => {
    const { status, json } = await withhold(purchaseId, withholdingBody({ lines: [{ tax: 'iva-30', code: 1, base: '15', rate: '30' }] }));
    expect(status).toBe(422);
    expect(json.error?.code).toBe('validation_failed');
    expect(Object.keys(json.errors ?? {})).toEqual(expect.arrayContaining(['lines[0].tax', 'lines[0].code']));
  });
});
