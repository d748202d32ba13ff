/**
 * The admin UI end to end (issue 7, CONTRACT §14): Debian's Chromium driven by
 * playwright-core against a real agent, a real HTTPS receiver and a SoftHSM2 token.
 * Screenshots of each screen land in test/e2e/screenshots (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import { loadTokenDriver } from '../../native/index.js';
import { jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import { emitEvent } from '../helpers/events.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createRequest, documentBody, getRequest } from '../helpers/signing-requests.js';
import { createSoftHsm, type SoftHsm } from '../helpers/softhsm.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');
/** ENGINEERING: Debian's Chromium, no network of its own, a fresh profile. */

let pki: TestPki;
let hsm: SoftHsm;
let agent: TestAgent;
let receiver: Receiver;
let ui: OpenChromium;
let context: BrowserContext;
let page: Page;
let certificateId: string;

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const go = async (screen: string) => {
  await page.goto(`${agent.baseUrl}/ui/#/${screen}`);
  await page.locator('main h1').waitFor();
};

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  pki = await createTestPki();
  hsm = await createSoftHsm();
  const token = await hsm.initToken({ label: 'oficina', pin: '1234' });
  await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });
  const driver = loadTokenDriver(hsm.modulePath);
  const serial = (await driver.listSlots()).find((s) => s.token?.label === 'oficina')!.token!.serialNumber;
  await driver.close();
  agent = await startTestAgent({ caFile: pki.ca.certificatePath, deliveryTimeScale: 0.00001, pkcs11Modules: [hsm.modulePath] });
  certificateId = registerTokenCertificate(agent.store, {
    modulePath: hsm.modulePath,
    tokenSerial: serial,
    tokenLabel: 'oficina',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  }).id;
  receiver = await startReceiver(pki, { script: [{ status: 500, body: 'error del ERP' }] });
  ui = await openChromium(agent.baseUrl);
  context = ui.context;
  // No request may leave the machine: anything not on the agent's origin fails the test.
  page = ui.page;
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await receiver?.close();
  await agent?.close();
  await hsm?.cleanup();
  await pki?.cleanup();
});

describe('the admin UI', () => {
  it('logs in through the one-time URL, which then stops working', async () => {
    await page.goto(agent.adminUrl);
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('heading', { name: 'Estado' }).waitFor();
    await expect(page.locator('dd').first().textContent()).resolves.toBe(agent.baseUrl);
    await shot('estado');
    const again = await (await context.newPage()).goto(agent.adminUrl);
    expect(again?.status()).toBe(401);
  });

  it('shows field errors in Spanish and sends nothing invalid (Libros)', async () => {
    await go('libros');
    await page.getByRole('button', { name: 'Crear libro' }).click();
    await expect(page.locator('[data-field-error="slug"]').textContent()).resolves.toBe('Obligatorio.');
    await page.getByLabel('Identificador').fill('Con Espacios');
    await page.getByLabel('Oficina (tenant)').fill('oficina-central');
    await page.getByRole('button', { name: 'Crear libro' }).click();
    await expect(page.locator('[data-field-error="slug"]').textContent()).resolves.toContain('minúsculas');
    await shot('libros-errores');
    await page.getByLabel('Identificador').fill('ferreteria-sur');
    await page.getByRole('button', { name: 'Crear libro' }).click();
    await page.getByRole('cell', { name: 'ferreteria-sur' }).first().waitFor();
    await shot('libros');
  });

  it('creates an API key shown once, and revokes it', async () => {
    await go('claves');
    await page.getByLabel('Libro').selectOption({ label: 'ACME S.A. (acme)' });
    await page.getByRole('button', { name: 'Crear clave' }).click();
    await expect(page.locator('[data-field-error="name"]').textContent()).resolves.toBe('Obligatorio.');
    await page.getByLabel('Nombre').fill('contabilidad');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const key = (await page.getByTestId('shown-once').textContent())!;
    expect(key).toMatch(/^sello_live_/);
    await shot('claves');
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(200);
    await page.getByRole('button', { name: 'Revocar contabilidad' }).click();
    await page.getByText('Clave revocada.').waitFor();
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(401);
  });

  it('creates a webhook endpoint, sees it in the JSON:API list, re-sends a failed delivery and pauses it', async () => {
    await go('webhooks');
    await page.getByLabel('URL', { exact: true }).fill('http://erp.example/hooks');
    await page.getByRole('button', { name: 'Crear destino' }).click();
    await expect(page.locator('[data-field-error="url"]').textContent()).resolves.toBe('La URL debe empezar por https://');
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByRole('button', { name: 'Crear destino' }).click();
    const secret = (await page.getByTestId('shown-once').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const list = (await (await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(agent.liveKey) })).json()) as { data: Array<{ id: string; attributes: { url: string } }> };
    expect(list.data.map((e) => e.attributes.url)).toEqual([receiver.url]);

    emitEvent(agent, { bookId: agent.book.id });
    await expect.poll(() => agent.store.sqlite.prepare("select count(*) as n from deliveries where state = 'failed'").get(), { timeout: 20_000 }).toEqual({ n: 1 });
    await go('webhooks');
    await page.getByRole('button', { name: `Entregas ${receiver.url}` }).click();
    await page.getByText('error del ERP').first().waitFor();
    await shot('webhooks-entregas');
    receiver.setScript([{ status: 200 }]);
    await page.getByRole('button', { name: 'Reenviar' }).click();
    await page.getByText('Entrega reenviada.').waitFor();
    await expect.poll(() => agent.store.sqlite.prepare("select state from deliveries").get(), { timeout: 10_000 }).toEqual({ state: 'delivered' });

    await page.getByRole('button', { name: `Pausar ${receiver.url}` }).click();
    await page.getByRole('button', { name: `Reanudar ${receiver.url}` }).waitFor();
    const paused = (await (await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(agent.liveKey) })).json()) as { data: Array<{ attributes: { active: boolean } }> };
    expect(paused.data[0]!.attributes.active).toBe(false);
    await shot('webhooks');
  });

  it('approves a pending token signature: a wrong PIN first says so and leaves it pending', async () => {
    const pdf = await makePdf();
    const { json } = await createRequest(agent, agent.liveApiKey, {
      subject: 'Contrato con token',
      send: true,
      documents: [documentBody(pdf, [{ signing_certificate: certificateId, page: '1', x: '36', y: '36' }], { id: 'c-1' })],
    });
    expect(json.status).toBe('processing');
    await go('firmas');
    await page.getByRole('button', { name: 'Aprobar' }).click();
    await expect(page.locator('[data-field-error="pin"]').textContent()).resolves.toBe('Escriba el PIN del token.');
    await page.getByLabel('PIN').fill('9999');
    await page.getByRole('button', { name: 'Aprobar' }).click();
    const message = page.locator('[data-field-error="pin"]');
    await expect.poll(() => message.textContent()).toMatch(/PIN/);
    await shot('firmas-pin-incorrecto');
    expect((await getRequest(agent, agent.liveApiKey, json.id)).json.status).toBe('processing');
    await page.getByLabel('PIN').fill('1234');
    await page.getByRole('button', { name: 'Aprobar' }).click();
    await page.getByText('Firma aprobada.').waitFor();
    await expect.poll(async () => (await getRequest(agent, agent.liveApiKey, json.id)).json.status, { timeout: 15_000 }).toBe('signed');
  });

  it('shows the other screens, and English on request', async () => {
    for (const screen of ['certificados', 'carpetas', 'actividad', 'estado']) {
      await go(screen);
      await shot(screen);
    }
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('heading', { name: 'Status' }).waitFor();
    await page.getByLabel('Language').selectOption('es');
    await page.getByRole('heading', { name: 'Estado' }).waitFor();
  });
});
