/**
 * Comprobantes waiting for a token's PIN in the window (CONTRACT §11, §14, §15; issue 16 point 3
 * "PIN flow as for signing requests"): Debian's Chromium driven by playwright-core against a
 * real agent whose test issuer's certificate is on a SoftHSM2 token and whose SRI is the fake.
 * The Estado screen counts the invoice; "Firmas pendientes" lists it under its token; an empty
 * PIN is refused in the page, a wrong one beside the field with nothing sent to the SRI, the
 * right one signs it on the token and it is authorized. Screenshots in test/e2e/screenshots.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import type { InvoiceRig } from '../helpers/invoices.js';
import { createIssuerToken, startTokenIssuerRig, type IssuerToken } from '../helpers/token-issuer.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');

let token: IssuerToken;
let rig: InvoiceRig;
let ui: OpenChromium;
let page: Page;
let invoice: { id: string; numero: string; access_key: string };

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const go = async (screen: string) => {
  await page.goto(`${rig.agent.baseUrl}/ui/#/${screen}`);
  await page.locator('main h1').waitFor();
};

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  token = await createIssuerToken();
  rig = await startTokenIssuerRig(token, { deliveryTimeScale: 1 });
  const { status, json } = await rig.post(rig.invoiceBody('UI-TOKEN-1'));
  if (status !== 201) throw new Error(`POST /api/v1/invoices: ${status} ${JSON.stringify(json)}`);
  invoice = json.data!;
  ui = await openChromium(rig.agent.baseUrl);
  page = ui.page;
  await page.goto(rig.agent.adminUrl);
  await page.getByRole('heading', { name: 'Estado' }).waitFor();
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await rig?.close();
  await token?.cleanup();
});

describe('comprobantes waiting for a token PIN', () => {
  it('are counted on the Estado screen', async () => {
    await expect.poll(async () => {
      await go('estado');
      return page.getByTestId('pending-invoices-count').textContent();
    }).toBe('1');
  });

  it('are listed under their token; a wrong PIN is said beside the field and nothing reaches the SRI; the right one sends it', async () => {
    await go('firmas');
    const section = page.locator('section.invoices');
    await expect(section.locator('h2').textContent()).resolves.toMatch(/^Comprobantes electrónicos que esperan el PIN — Token: emisor \(conectado\)/);
    await expect(section.locator('td').first().textContent()).resolves.toBe(`Factura ${invoice.numero}`);
    await expect(section.textContent()).resolves.toContain('Esperando el PIN del token «emisor»');

    const send = section.getByRole('button', { name: 'Firmar y enviar al SRI' });
    await send.click();
    await expect(section.locator('[data-field-error="pin"]').textContent()).resolves.toBe('Escriba el PIN del token.');

    await section.getByLabel('PIN').fill('9999');
    await send.click();
    await expect.poll(() => section.locator('[data-field-error="pin"]').textContent()).toMatch(/^El PIN no es correcto/);
    await shot('firmas-comprobante-pin-incorrecto');
    expect((await rig.get(invoice.id)).json.data.status).toBe('pending');
    expect(rig.sri.calls).toHaveLength(0);

    await section.getByLabel('PIN').fill('1234');
    await send.click();
    await page.getByText('PIN correcto. Comprobantes que ahora se firman y se envían al SRI: 1').waitFor();
    const done = await rig.waitForStatus(invoice.id, ['authorized', 'rejected', 'failed'], { timeoutMs: 10_000 });
    expect(done.status).toBe('authorized');
    await go('estado');
    await go('firmas');
    await page.getByText('No hay elementos.').waitFor();
    await shot('firmas-sin-pendientes');
  });
});
