/**
 * The Emisor screen end to end (CONTRACT §14, §15; issue 16 point 1): Debian's Chromium driven
 * by playwright-core against a real agent with a real `.p12` certificate. Open "Emisor", see
 * that the book has none, have empty and bad fields refused beside each field (in the page, and
 * by the server for a RUC whose check digit is wrong), fill the form with two establishments,
 * save, and find the issuer stored: on the screen, in the store, and through
 * `GET /api/v1/issuer`. Screenshots in test/e2e/screenshots.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');

let pki: TestPki;
let agent: TestAgent;
let ui: OpenChromium;
let page: Page;
let work: string;
let certificateId: string;

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const fieldError = (name: string) => page.locator(`[data-field-error="${name}"]`);
const input = (name: string) => page.locator(`[name="${name}"]`);
const issuerRows = () => agent.store.sqlite.prepare('select book_id, environment, certificate_id, body from issuers').all() as Array<{ environment: string; certificate_id: string; body: string }>;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  pki = await createTestPki();
  work = tempDir('sello-issuer-ui-');
  fs.writeFileSync(path.join(work, 'ana.key.pem'), pki.leaf.privateKeyPem);
  fs.writeFileSync(path.join(work, 'ana.cert.pem'), pki.leaf.certificatePem);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', path.join(work, 'ana.key.pem'), '-in', path.join(work, 'ana.cert.pem'), '-out', path.join(work, 'ana.p12'), '-passout', 'pass:clave']);
  agent = await startTestAgent();
  const imported = await agent.fetch('/admin/api/certificates/p12', {
    method: 'POST',
    headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ file_base64: fs.readFileSync(path.join(work, 'ana.p12')).toString('base64'), password: 'clave' }),
  });
  certificateId = ((await imported.json()) as { data: { id: string } }).data.id;
  ui = await openChromium(agent.baseUrl);
  page = ui.page;
  await page.goto(agent.adminUrl);
  await page.getByRole('heading', { name: 'Estado' }).waitFor();
}, 60_000);

afterAll(async () => {
  await ui?.close();
  await agent?.close();
  await pki?.cleanup();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the Emisor screen', () => {
  it('is in the navigation and says the book has no issuer yet', async () => {
    await page.getByRole('link', { name: 'Emisor' }).click();
    await page.getByRole('heading', { name: 'Emisor', level: 1 }).waitFor();
    await page.getByText('Este libro no tiene emisor en este entorno').waitFor();
    expect(await page.getByLabel('Entorno').inputValue()).toBe('live');
  });

  it('refuses empty and bad fields beside each field, in the page and from the server, storing nothing', async () => {
    const save = page.getByRole('button', { name: 'Guardar emisor' });
    await save.click();
    await expect(fieldError('ruc').textContent()).resolves.toBe('Obligatorio.');
    await expect(fieldError('razon_social').textContent()).resolves.toBe('Obligatorio.');
    await expect(fieldError('certificate_id').textContent()).resolves.toBe('Elija el certificado con el que se firman los comprobantes.');
    await expect(fieldError('establishments[0].address').textContent()).resolves.toBe('Obligatorio.');

    await page.getByLabel('RUC', { exact: true }).fill('1712345674001'); // the cédula's check digit is wrong
    await page.getByLabel('Razón social').fill('Pérez López Ana María');
    await page.getByLabel('Dirección de la matriz').fill('Av. Amazonas N34-451 y Atahualpa, Quito');
    await input('establishments[0].address').fill('Av. Amazonas N34-451 y Atahualpa, Quito');
    await input('establishments[0].emission_points').fill('001, 0002');
    await page.getByLabel('Certificado de firma').selectOption(certificateId);
    await save.click();
    await expect(fieldError('establishments[0].emission_points').textContent()).resolves.toContain('tres dígitos');
    expect(issuerRows()).toEqual([]);

    await input('establishments[0].emission_points').fill('001, 002');
    await save.click();
    await expect.poll(() => fieldError('ruc').textContent()).toContain('módulo 10');
    await expect(page.getByLabel('RUC', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await shot('emisor-errores');
    expect(issuerRows()).toEqual([]);
  });

  it('saves an issuer with two establishments and shows it stored', async () => {
    await page.getByLabel('RUC', { exact: true }).fill('1712345675001');
    await page.getByLabel('Nombre comercial (opcional)').fill('Café Ñusta');
    await page.getByLabel('Obligado a llevar contabilidad').check();
    await page.getByLabel('Contribuyente especial: n.º de resolución (opcional)').fill('5368');
    await page.getByLabel('Régimen').selectOption('rimpe_emprendedor');
    await page.getByRole('button', { name: 'Añadir establecimiento' }).click();
    await input('establishments[1].code').fill('002');
    await input('establishments[1].address').fill('Av. 9 de Octubre 1215, Guayaquil');
    await input('establishments[1].emission_points').fill('001 003');
    await page.getByRole('button', { name: 'Guardar emisor' }).click();
    await page.getByText('Emisor guardado.').waitFor();
    const facts = page.getByTestId('issuer');
    await expect(facts.textContent()).resolves.toContain('1712345675001');
    await expect(facts.textContent()).resolves.toContain('001 (001, 002); 002 (001, 003)');
    await shot('emisor');

    const rows = issuerRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ environment: 'live', certificate_id: certificateId });
    const stored = {
      country: 'EC',
      ruc: '1712345675001',
      razon_social: 'Pérez López Ana María',
      nombre_comercial: 'Café Ñusta',
      dir_matriz: 'Av. Amazonas N34-451 y Atahualpa, Quito',
      establishments: [
        { code: '001', address: 'Av. Amazonas N34-451 y Atahualpa, Quito', emission_points: ['001', '002'] },
        { code: '002', address: 'Av. 9 de Octubre 1215, Guayaquil', emission_points: ['001', '003'] },
      ],
      obligado_contabilidad: true,
      contribuyente_especial: '5368',
      regimen: 'rimpe_emprendedor',
      certificate_id: certificateId,
    };
    expect(JSON.parse(rows[0]!.body)).toEqual(stored);
    // The same issuer the ERP reads with the book's live key.
    const api = await agent.fetch('/api/v1/issuer', { headers: { Authorization: `Bearer ${agent.liveKey}` } });
    expect(((await api.json()) as { data: unknown }).data).toMatchObject(stored);

    // The form shows what is stored after a reload.
    await page.reload();
    await page.getByTestId('issuer').waitFor();
    expect(await page.getByLabel('Razón social').inputValue()).toBe('Pérez López Ana María');
    expect(await input('establishments[1].emission_points').inputValue()).toBe('001, 003');
    expect(await page.getByLabel('Certificado de firma').inputValue()).toBe(certificateId);
  });

  it('keeps the test environment apart, and speaks English when asked', async () => {
    await page.getByLabel('Entorno').selectOption('test');
    await page.getByText('Este libro no tiene emisor en este entorno').waitFor();
    expect(issuerRows()).toHaveLength(1);
    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('heading', { name: 'Issuer', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Save issuer' }).waitFor();
    await page.getByLabel('Language').selectOption('es');
  });
});
