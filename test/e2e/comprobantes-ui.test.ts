/**
 * The Comprobantes screen end to end (CONTRACT §14, §15): Debian's Chromium driven by
 * playwright-core against a real agent whose SRI is the fake. Three invoices in the test
 * environment — one authorized, one the SRI rejected, one it holds EN PROCESO — are listed
 * newest first with their number, customer, total and state (the SRI's message beside the
 * rejected one); the state filter and "Más" work; "RIDE (PDF)" and "XML" download the files
 * through the admin session, and XML waits for the authorization. Screenshots in
 * test/e2e/screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Download, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import { sriMessages } from '../helpers/fake-sri/index.js';
import { startInvoiceRig, type InvoiceRig } from '../helpers/invoices.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');

type Issued = { id: string; numero: string; access_key: string };

let rig: InvoiceRig;
let ui: OpenChromium;
let page: Page;
let authorized: Issued;
let rejected: Issued;
let held: Issued;

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const row = (doc: Issued): Locator => page.locator(`tr[data-comprobante="${doc.id}"]`);
const rows = () => page.locator('tr[data-comprobante]');
const ids = async () => rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-comprobante')));

async function issue(ref: string): Promise<Issued> {
  const { status, json } = await rig.post(rig.invoiceBody(ref));
  if (status !== 201) throw new Error(`POST /api/v1/invoices: ${status} ${JSON.stringify(json)}`);
  return json.data!;
}

/** Clicks `button` and returns the download it starts and the API answer behind it. */
async function download(button: Locator, path: RegExp): Promise<{ file: Download; status: number; type: string | null; bytes: Buffer }> {
  const [file, response] = await Promise.all([page.waitForEvent('download'), page.waitForResponse((r) => path.test(new URL(r.url()).pathname)), button.click()]);
  const saved = await file.path();
  return { file, status: response.status(), type: response.headers()['content-type'] ?? null, bytes: fs.readFileSync(saved) };
}

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  rig = await startInvoiceRig();
  authorized = await issue('UI-COMP-1');
  await rig.waitForStatus(authorized.id, ['authorized']);
  rig.sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.fechaExtemporanea()] });
  rejected = await issue('UI-COMP-2');
  await rig.waitForStatus(rejected.id, ['rejected']);
  rig.sri.setPolicy('autorizacion', { kind: 'en-proceso' });
  held = await issue('UI-COMP-3');
  await rig.waitForStatus(held.id, ['sent']);
  ui = await openChromium(rig.agent.baseUrl);
  page = ui.page;
  await page.goto(rig.agent.adminUrl);
  await page.getByRole('heading', { name: 'Estado' }).waitFor();
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await rig?.close();
});

describe('the Comprobantes screen', () => {
  it('is in the navigation and lists the test environment’s comprobantes, newest first', async () => {
    await page.getByRole('link', { name: 'Comprobantes' }).click();
    await page.getByRole('heading', { name: 'Comprobantes', level: 1 }).waitFor();
    expect(await page.getByLabel('Entorno').inputValue()).toBe('live');
    await page.getByText('Sello no ha emitido comprobantes en este libro y entorno.').waitFor();

    await page.getByLabel('Entorno').selectOption('test');
    await row(authorized).waitFor();
    expect(await ids()).toEqual([held.id, rejected.id, authorized.id]);
    const cells = await row(authorized).locator('td').allTextContents();
    expect(cells.slice(0, 6)).toEqual([
      'Factura',
      authorized.numero,
      expect.stringMatching(/^\d{1,2}\/\d{1,2}\/\d{4}$/),
      'María José Núñez Peñaherrera1714307103',
      '135.00 USD',
      'Autorizado',
    ]);
    await expect(page.getByRole('status').filter({ hasText: 'Mostrando' }).textContent()).resolves.toBe('Mostrando 3 de 3.');
    expect(await page.getByRole('button', { name: 'Más' }).isHidden()).toBe(true);
    await shot('comprobantes');
  });

  it('says why the SRI rejected one, and offers the XML only once authorized', async () => {
    await expect(row(rejected).locator('[data-status]').textContent()).resolves.toBe('Rechazado');
    await expect(row(rejected).textContent()).resolves.toContain('SRI: 65: FECHA EMISIÓN EXTEMPORANEA');
    await expect(row(held).locator('[data-status]').textContent()).resolves.toBe('Recibido por el SRI, por autorizar');
    const xml = (doc: Issued) => row(doc).getByRole('button', { name: 'XML' });
    expect(await xml(authorized).isEnabled()).toBe(true);
    expect(await xml(rejected).isDisabled()).toBe(true);
    expect(await xml(held).isDisabled()).toBe(true);
    expect(await xml(held).getAttribute('title')).toBe('El XML de autorización se puede descargar cuando el SRI autoriza el comprobante.');
  });

  it('"RIDE (PDF)" downloads the RIDE through the admin session', async () => {
    const button = row(authorized).getByRole('button', { name: 'RIDE (PDF)' });
    expect(await button.getAttribute('aria-label')).toBe(`RIDE (PDF) — Factura ${authorized.numero}`);
    const got = await download(button, new RegExp(`^/admin/api/fiscal/comprobantes/${authorized.id}/ride$`));
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/pdf');
    expect(got.file.suggestedFilename()).toBe(`invoice-${authorized.numero}.pdf`);
    expect(got.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(await page.locator('.notice.error').count()).toBe(0);
  });

  it('"XML" downloads the SRI’s autorizacion', async () => {
    const got = await download(row(authorized).getByRole('button', { name: 'XML' }), new RegExp(`/${authorized.id}/xml$`));
    expect(got.status).toBe(200);
    expect(got.file.suggestedFilename()).toBe(`invoice-${authorized.numero}.xml`);
    const xml = got.bytes.toString('utf8');
    expect(xml).toContain('<estado>AUTORIZADO</estado>');
    expect(xml).toContain(`<numeroAutorizacion>${authorized.access_key}</numeroAutorizacion>`);
  });

  it('filters by state', async () => {
    await page.getByLabel('Estado', { exact: true }).selectOption('rejected');
    await expect.poll(ids).toEqual([rejected.id]);
    await page.getByLabel('Estado', { exact: true }).selectOption('failed');
    await page.getByText('No hay comprobantes en ese estado.').waitFor();
    await page.getByLabel('Estado', { exact: true }).selectOption('');
    await expect.poll(ids).toEqual([held.id, rejected.id, authorized.id]);
  });

  it('"Más" brings the next page after the last row shown', async () => {
    // Pages of one row (the screen asks for 50), to page through three with the real API.
    const asked: string[] = [];
    await page.route(/\/admin\/api\/fiscal\/comprobantes\?/, (route) => {
      const url = new URL(route.request().url());
      url.searchParams.set('limit', '1');
      asked.push(url.searchParams.get('offset') ?? '');
      return route.continue({ url: url.toString() });
    });
    try {
      await page.getByRole('button', { name: 'Actualizar' }).click();
      await expect.poll(ids).toEqual([held.id]);
      const more = page.getByRole('button', { name: 'Más' });
      await more.click();
      await expect.poll(ids).toEqual([held.id, rejected.id]);
      await expect(page.getByRole('status').filter({ hasText: 'Mostrando' }).textContent()).resolves.toBe('Mostrando 2 de 3.');
      await more.click();
      await expect.poll(ids).toEqual([held.id, rejected.id, authorized.id]);
      expect(await more.isHidden()).toBe(true);
      expect(asked).toEqual(['0', '1', '2']);
    } finally {
      await page.unroute(/\/admin\/api\/fiscal\/comprobantes\?/);
    }
  });

  it('shows the authorization when it comes, on "Actualizar"', async () => {
    rig.sri.setPolicy('autorizacion', { kind: 'normal' });
    await rig.waitForStatus(held.id, ['authorized']);
    await page.getByRole('button', { name: 'Actualizar' }).click();
    await expect.poll(() => row(held).locator('[data-status]').textContent()).toBe('Autorizado');
    expect(await row(held).getByRole('button', { name: 'XML' }).isEnabled()).toBe(true);
  });
});
