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
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { tempDir } from '../helpers/agent.js';
import { issuerBody, putIssuer, startInvoiceRig, type InvoiceRig } from '../helpers/invoices.js';
import { createSoftHsm, type SoftHsm } from '../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let pki: TestPki;
let hsm: SoftHsm;
let rig: InvoiceRig;
let context: BrowserContext;
let page: Page;
let profileDir: string;
let invoice: { id: string; numero: string; access_key: string };

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const go = async (screen: string) => {
  await page.goto(`${rig.agent.baseUrl}/ui/#/${screen}`);
  await page.locator('main h1').waitFor();
};

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  pki = await createTestPki();
  hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: 'emisor', pin: '1234' });
  await token.importKey({ id: '01', label: 'emisor', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const driver = loadTokenDriver(hsm.modulePath);
  const serial = (await driver.listSlots()).find((s) => s.token?.label === 'emisor')!.token!.serialNumber;
  await driver.close();
  rig = await startInvoiceRig({ config: { pkcs11Modules: [hsm.modulePath], deliveryTimeScale: 1 } });
  const certificateId = registerTokenCertificate(rig.agent.store, {
    modulePath: hsm.modulePath,
    tokenSerial: serial,
    tokenLabel: 'emisor',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  }).id;
  await putIssuer(rig.agent, rig.agent.testKey, issuerBody(certificateId));
  const { status, json } = await rig.post(rig.invoiceBody('UI-TOKEN-1'));
  if (status !== 201) throw new Error(`POST /api/v1/invoices: ${status} ${JSON.stringify(json)}`);
  invoice = json.data!;
  profileDir = tempDir('sello-chromium-');
  context = await chromium.launchPersistentContext(profileDir, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true, locale: 'es-EC' });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => {
    if (!r.url().startsWith(rig.agent.baseUrl)) throw new Error(`external request: ${r.url()}`);
  });
  await page.goto(rig.agent.adminUrl);
  await page.getByRole('heading', { name: 'Estado' }).waitFor();
}, 60_000);

afterAll(async () => {
  await context?.close();
  await rig?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
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
    await expect(section.locator('td').first().textContent()).resolves.toBe(invoice.numero);
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
