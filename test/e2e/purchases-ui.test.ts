/**
 * The Compras recibidas screen end to end (CONTRACT §14, §15): Debian's Chromium driven by
 * playwright-core against a real agent whose SRI is the fake. A supplier — another book of the
 * agent, with its own issuer — issues facturas to the book's RUC that the fake SRI authorizes.
 * One is recorded through the API and withheld: the screen lists it in the test environment with
 * its supplier, number, total, origin and the withholding with its state. "Registrar compra"
 * records another by its access key and one by the XML file received by e-mail, each becoming
 * the list's first row; a key with a wrong check digit shows the SRI-side reason in Spanish
 * beside the field, and a key that is not 49 digits is refused before anything is sent.
 * Screenshots in test/e2e/screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecuadorDate } from '../../core/fiscal/sri/index.js';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import { fiscalHeaders } from '../helpers/documents.js';
import { comprobanteClient, ISSUER_RUC, issuerBody, putIssuer, startInvoiceRig, validInvoiceBody, type InvoiceRig } from '../helpers/invoices.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');
const SUPPLIER_RUC = '1790011674001';
const SUPPLIER_NAME = 'Distribuidora Ñandú & Cía. Ltda.';
const BUYER = { name: 'Contadores Andinos Pérez & Asociados S.A.', tax_id: ISSUER_RUC, tax_id_type: { type: 'ec-ruc', code: '06' } };

type Issued = { id: string; numero: string; access_key: string };

let rig: InvoiceRig;
let ui: OpenChromium;
let page: Page;
let supplierKey: string;
/** Recorded through the API and withheld before the screen opens. */
let recorded: { purchaseId: string; invoice: Issued; withholding: Issued };
let ref = 0;

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const rowOf = (purchaseId: string): Locator => page.locator(`tr[data-purchase="${purchaseId}"]`);
const ids = async () => page.locator('tr[data-purchase]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-purchase')));
const keyField = () => page.getByLabel('Clave de acceso (49 dígitos)');
const submit = () => page.getByRole('button', { name: 'Registrar compra' });

async function supplierInvoice(): Promise<Issued> {
  const invoices = comprobanteClient(rig, '/api/v1/invoices');
  const { status, json } = await invoices.post(validInvoiceBody(`PROV-UI-${++ref}`, { customer: BUYER }), supplierKey);
  if (status !== 201) throw new Error(`POST /api/v1/invoices: ${status} ${JSON.stringify(json)}`);
  await invoices.waitFor(json.data!.id, ['authorized'], supplierKey);
  return json.data!;
}

/** The purchase the book recorded for `accessKey`, from the store (what the screen should show). */
function purchaseIdOf(accessKey: string): string | undefined {
  return rig.agent.store.statement<[string], { id: string }>('select id from purchases where access_key = ?').get(accessKey)?.id;
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  rig = await startInvoiceRig();
  const supplier = rig.agent.addBook('proveedor', { environment: 'test' });
  await putIssuer(rig.agent, supplier.key, issuerBody(rig.testCertificateId, { ruc: SUPPLIER_RUC, razon_social: SUPPLIER_NAME, nombre_comercial: 'Ñandú' }));
  supplierKey = supplier.key;

  const invoice = await supplierInvoice();
  const res = await rig.agent.fetch('/api/v1/purchases', { method: 'POST', headers: fiscalHeaders(rig.agent.testKey), body: JSON.stringify({ access_key: invoice.access_key }) });
  if (res.status !== 201) throw new Error(`POST /api/v1/purchases: ${res.status} ${await res.text()}`);
  const purchaseId = ((await res.json()) as { data: { id: string } }).data.id;
  const withheld = await rig.agent.fetch(`/api/v1/purchases/${purchaseId}/withhold`, {
    method: 'POST',
    headers: fiscalHeaders(rig.agent.testKey),
    body: JSON.stringify({ external_ref: 'RET-UI-1', issue_date: ecuadorDate(new Date()), lines: [{ tax: 'renta', code: '312', base: '120.00', rate: '1.75' }] }),
  });
  if (withheld.status !== 201) throw new Error(`POST …/withhold: ${withheld.status} ${await withheld.text()}`);
  const withholding = ((await withheld.json()) as { data: Issued }).data;
  await comprobanteClient(rig, '/api/v1/withholdings').waitFor(withholding.id, ['authorized']);
  recorded = { purchaseId, invoice, withholding };

  ui = await openChromium(rig.agent.baseUrl);
  page = ui.page;
  await page.goto(rig.agent.adminUrl);
  await page.getByRole('heading', { name: 'Estado' }).waitFor();
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await rig?.close();
});

describe('the Compras recibidas screen', () => {
  it('is in the navigation after Comprobantes and lists the test environment’s purchases with their withholdings', async () => {
    const nav = await page.getByRole('navigation').getByRole('link').allTextContents();
    expect(nav.slice(nav.indexOf('Comprobantes'), nav.indexOf('Comprobantes') + 2)).toEqual(['Comprobantes', 'Compras']);
    await page.getByRole('link', { name: 'Compras', exact: true }).click();
    await page.getByRole('heading', { name: 'Compras recibidas', level: 1 }).waitFor();
    expect(await page.getByLabel('Entorno').inputValue()).toBe('live');
    await page.getByText('No hay compras registradas en este libro y entorno.').waitFor();

    await page.getByLabel('Entorno').selectOption('test');
    const row = rowOf(recorded.purchaseId);
    await row.waitFor();
    expect(await ids()).toEqual([recorded.purchaseId]);
    const cells = await row.locator('td').allTextContents();
    expect(cells).toEqual([
      `${SUPPLIER_NAME}Ñandú`,
      SUPPLIER_RUC,
      recorded.invoice.numero,
      expect.stringMatching(/^\d{1,2}\/\d{1,2}\/\d{4}$/),
      '135.00 USD',
      `${recorded.withholding.numero} Autorizado`,
      'SRI (clave de acceso)',
    ]);
    const withholding = row.locator(`[data-withholding="${recorded.withholding.id}"]`);
    await expect(withholding.locator('[data-status]').textContent()).resolves.toBe('Autorizado');
    await expect(page.getByRole('status').filter({ hasText: 'Mostrando' }).textContent()).resolves.toBe('Mostrando 1 de 1.');
    expect(await page.getByRole('button', { name: 'Más' }).isHidden()).toBe(true);
    await shot('compras');
  });

  it('a key that is not 49 digits is refused in the page, nothing sent', async () => {
    const asked: string[] = [];
    const count = (r: { url(): string; method(): string }) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/admin/api/fiscal/purchases') asked.push(r.url());
    };
    page.on('request', count);
    try {
      await keyField().fill('1234 5678');
      await submit().click();
      await expect.poll(() => page.locator('[data-field-error="access_key"]').textContent()).toBe('La clave de acceso tiene 49 dígitos.');
      expect(await keyField().getAttribute('aria-invalid')).toBe('true');
      await keyField().fill('');
      await submit().click();
      await expect.poll(() => page.locator('[data-field-error="access_key"]').textContent()).toBe('Escriba la clave de acceso o elija el XML de la factura.');
    } finally {
      page.off('request', count);
    }
    expect(asked).toEqual([]);
  });

  it('a key with a wrong check digit shows the server’s reason in Spanish beside the field', async () => {
    const invoice = await supplierInvoice();
    const wrong = invoice.access_key.slice(0, 48) + String((Number(invoice.access_key[48]) + 1) % 10);
    await keyField().fill(wrong);
    const [response] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/admin/api/fiscal/purchases' && r.request().method() === 'POST'), submit().click()]);
    expect(response.status()).toBe(422);
    await expect
      .poll(() => page.locator('[data-field-error="access_key"]').textContent())
      .toBe('el dígito verificador (el último, módulo 11) no corresponde: revise la clave de acceso');
    expect(await keyField().getAttribute('aria-invalid')).toBe('true');
    expect(await keyField().inputValue()).toBe(wrong);
    expect(await ids()).toEqual([recorded.purchaseId]);
    await shot('compras-clave-erronea');
  });

  it('"Registrar compra" by access key records the factura: it becomes the first row', async () => {
    const invoice = await supplierInvoice();
    // Pasted from a RIDE with spaces: the page takes the digits.
    await keyField().fill(`${invoice.access_key.slice(0, 24)} ${invoice.access_key.slice(24)}`);
    await submit().click();
    await page.getByText(`Compra registrada: Factura ${invoice.numero} — ${SUPPLIER_NAME} (135.00 USD).`).waitFor();
    const id = purchaseIdOf(invoice.access_key)!;
    expect(id).toBeDefined();
    await expect.poll(ids).toEqual([id, recorded.purchaseId]);
    const cells = await rowOf(id).locator('td').allTextContents();
    expect(cells.slice(2)).toEqual([invoice.numero, expect.any(String), '135.00 USD', 'Ninguna', 'SRI (clave de acceso)']);
    expect(await keyField().inputValue()).toBe('');
    expect(await page.locator('.notice.error').count()).toBe(0);
    await shot('compras-registrada');
  });

  it('"Registrar compra" with the XML received by e-mail records it too', async () => {
    const invoice = await supplierInvoice();
    const xml = await (await rig.agent.fetch(`/api/v1/invoices/${invoice.id}/xml`, { headers: { Authorization: `Bearer ${supplierKey}` } })).text();
    await page.getByLabel('XML de la factura recibido por correo (en lugar de la clave)').setInputFiles({ name: 'factura.xml', mimeType: 'application/xml', buffer: Buffer.from(xml, 'utf8') });
    await submit().click();
    await page.getByText(`Compra registrada: Factura ${invoice.numero}`).waitFor();
    const id = purchaseIdOf(invoice.access_key)!;
    await expect.poll(async () => (await ids())[0]).toBe(id);
    await expect(rowOf(id).locator('td').last().textContent()).resolves.toBe('XML recibido');
    await expect(page.getByRole('status').filter({ hasText: 'Mostrando' }).textContent()).resolves.toBe('Mostrando 3 de 3.');
  });
});
