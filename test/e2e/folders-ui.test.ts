/**
 * The Certificados and Carpetas screens end to end (issue 7, CONTRACT §13, §14): Debian's
 * Chromium driven by playwright-core against a real agent. Issue a test certificate and
 * import a `.p12` (wrong password first) from the UI, watch a folder with that certificate,
 * see a dropped PDF signed and counted, remove the folder. Screenshots in test/e2e/screenshots.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { openChromium, type OpenChromium } from '../helpers/chromium.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const SHOTS = path.join(import.meta.dirname, 'screenshots');

let pki: TestPki;
let agent: TestAgent;
let ui: OpenChromium;
let page: Page;
let work: string;
let watched: string;
let p12Path: string;

const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const go = async (screen: string) => {
  await page.goto(`${agent.baseUrl}/ui/#/${screen}`);
  await page.locator('main h1').waitFor();
};
const fieldError = (name: string) => page.locator(`[data-field-error="${name}"]`);
const certificateRows = () => agent.store.sqlite.prepare('select id, source, fingerprint from certificates order by rowid').all();
const folderRows = () => agent.store.sqlite.prepare('select id, path from watched_folders order by rowid').all() as Array<{ id: string; path: string }>;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  pki = await createTestPki();
  work = tempDir('sello-folders-ui-');
  watched = path.join(work, 'facturas');
  fs.mkdirSync(watched);
  const issued = pki.issue({ subject: { commonName: 'LUIS TORRES', givenName: 'LUIS', surname: 'TORRES', serialNumber: '1712345678', country: 'EC' } });
  fs.writeFileSync(path.join(work, 'luis.key.pem'), issued.privateKeyPem);
  fs.writeFileSync(path.join(work, 'luis.cert.pem'), issued.certificatePem);
  p12Path = path.join(work, 'luis.p12');
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', path.join(work, 'luis.key.pem'), '-in', path.join(work, 'luis.cert.pem'), '-certfile', pki.ca.certificatePath, '-out', p12Path, '-passout', 'pass:clave-ñ']);
  agent = await startTestAgent();
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

describe('the Certificados screen', () => {
  it('issues a test certificate: empty and invalid fields first, in Spanish, nothing sent', async () => {
    await go('certificados');
    const issue = page.getByRole('button', { name: 'Emitir certificado de prueba' });
    await issue.click();
    await expect(fieldError('principal.first_name').textContent()).resolves.toBe('Obligatorio.');
    await expect(fieldError('principal.legal_id').textContent()).resolves.toBe('Obligatorio.');
    await page.getByLabel('Nombres', { exact: true }).fill('Ana María');
    await page.getByLabel('Apellidos', { exact: true }).fill('Pérez López');
    await page.getByLabel('Correo electrónico').fill('ana.perez');
    await page.getByLabel('Teléfono móvil').fill('+593 99 123 4567');
    await page.getByLabel('Tipo de identificación').selectOption('ec-cedula');
    await page.getByLabel('Número de identificación').fill('0912345678');
    await page.getByLabel('Dirección', { exact: true }).fill('Av. 9 de Octubre 100');
    await page.getByLabel('Parroquia o localidad').fill('Tarqui');
    await page.getByLabel('Provincia (nivel 1)').fill('Guayas');
    await page.getByLabel('Cantón (nivel 2)').fill('Guayaquil');
    await page.getByLabel('Tipo', { exact: true }).selectOption('ec/instant');
    await issue.click();
    await expect(fieldError('principal.email').textContent()).resolves.toBe('No es una dirección de correo válida.');
    await expect(fieldError('validity').textContent()).resolves.toContain('1 día');
    await shot('certificados-errores');
    expect(certificateRows()).toEqual([]);

    await page.getByLabel('Correo electrónico').fill('ana.perez@example.ec');
    await page.getByLabel('Tipo', { exact: true }).selectOption('ec/individual');
    await issue.click();
    await page.getByText('Certificado de prueba emitido: Ana María Pérez López').waitFor();
    await page.getByRole('cell', { name: 'Ana María Pérez López' }).waitFor();
    expect(certificateRows()).toHaveLength(1);
  });

  it('imports a .p12: a wrong password says so beside the field and stores nothing; the right one imports it', async () => {
    await go('certificados');
    const importButton = page.getByRole('button', { name: 'Importar', exact: true });
    await importButton.click();
    await expect(fieldError('file_base64').textContent()).resolves.toBe('Elija el archivo .p12.');
    await expect(fieldError('password').textContent()).resolves.toBe('Escriba la contraseña del archivo .p12.');
    const before = certificateRows();

    await page.getByLabel('Archivo .p12 o .pfx').setInputFiles(p12Path);
    await page.getByLabel('Contraseña del archivo').fill('equivocada');
    await importButton.click();
    await expect.poll(() => fieldError('password').textContent()).toContain('La contraseña del archivo .p12 no es correcta');
    await expect(page.getByLabel('Contraseña del archivo').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot('certificados-p12-contrasena-incorrecta');
    expect(certificateRows()).toEqual(before);

    await page.getByLabel('Contraseña del archivo').fill('clave-ñ');
    await importButton.click();
    await page.getByText('Certificado importado: LUIS TORRES').waitFor();
    const after = certificateRows() as Array<{ source: string }>;
    expect(after).toHaveLength(2);
    expect(after[1]!.source).toBe('p12');
    await shot('certificados');
  });
});

describe('the Carpetas screen', () => {
  it('refuses empty and invalid fields beside each field; server errors land beside theirs', async () => {
    await go('carpetas');
    const add = page.getByRole('button', { name: 'Vigilar carpeta' });
    await page.getByLabel('Página (número o last)').fill('');
    await add.click();
    await expect(fieldError('folder').textContent()).resolves.toBe('Obligatorio.');
    await expect(fieldError('certificate').textContent()).resolves.toBe('Elija un certificado.');
    await expect(fieldError('page').textContent()).resolves.toBe('Obligatorio.');
    await page.getByLabel('Página (número o last)').fill('primera');
    await page.getByLabel(/^X \(/).fill('-5');
    await add.click();
    await expect(fieldError('page').textContent()).resolves.toBe('Escriba un número de página (1, 2, …) o last.');
    await expect(fieldError('x').textContent()).resolves.toBe('Escriba un número mayor o igual a 0.');
    expect(folderRows()).toEqual([]);

    // Valid in the page, refused by the server: the folder does not exist.
    await page.getByLabel('Carpeta', { exact: true }).fill(path.join(work, 'no-existe'));
    await page.getByLabel('Certificado', { exact: true }).selectOption({ label: await certificateLabel('Ana María Pérez López') });
    await page.getByLabel('Página (número o last)').fill('last');
    await page.getByLabel(/^X \(/).fill('');
    await add.click();
    await expect.poll(() => fieldError('folder').textContent()).toContain('no existe');
    await shot('carpetas-errores');
    expect(folderRows()).toEqual([]);
  });

  it('watches a folder with the test certificate, signs a dropped PDF, counts it, and removes the folder', async () => {
    await go('carpetas');
    await page.getByLabel('Carpeta', { exact: true }).fill(watched);
    await page.getByLabel('Certificado', { exact: true }).selectOption({ label: await certificateLabel('Ana María Pérez López') });
    await page.getByLabel('Página (número o last)').fill('1');
    await page.getByLabel('Tamaño del sello').selectOption('s');
    await page.getByRole('button', { name: 'Vigilar carpeta' }).click();
    await page.getByText(`Carpeta añadida: ${watched}`).waitFor();
    expect(folderRows().map((f) => f.path)).toEqual([watched]);

    fs.writeFileSync(path.join(watched, 'factura-001.pdf'), await makePdf());
    await expect.poll(() => (fs.existsSync(path.join(watched, 'firmados')) ? fs.readdirSync(path.join(watched, 'firmados')) : []), { timeout: 30_000 }).toEqual(['factura-001.pdf']);
    const signed = fs.readFileSync(path.join(watched, 'firmados', 'factura-001.pdf'));
    expect(signed.includes(Buffer.from('/ByteRange'))).toBe(true);

    const done = page.locator(`[data-count="done"][data-folder="${watched}"]`);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Actualizar' }).click();
          return done.textContent();
        },
        { timeout: 15_000 },
      )
      .toBe('1');
    await expect(page.locator(`[data-count="failed"][data-folder="${watched}"]`).textContent()).resolves.toBe('0');
    await expect(page.locator(`[data-count="waiting_pin"][data-folder="${watched}"]`).textContent()).resolves.toBe('0');
    await shot('carpetas');

    await page.getByRole('button', { name: `Quitar ${watched}` }).click();
    await page.getByText('¿Dejar de vigilar esta carpeta?').waitFor();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    expect(folderRows()).toHaveLength(1);
    await page.getByRole('button', { name: `Quitar ${watched}` }).click();
    await page.getByRole('button', { name: 'Sí, dejar de vigilar' }).click();
    await page.getByText(`Carpeta quitada: ${watched}`).waitFor();
    expect(folderRows()).toEqual([]);
    // The signed copy stays where it was.
    expect(fs.existsSync(path.join(watched, 'firmados', 'factura-001.pdf'))).toBe(true);
  });
});

/** The certificate picker's option for a holder (its label also says type, environment and expiry). */
async function certificateLabel(holder: string): Promise<string> {
  const labels = await page.getByLabel('Certificado', { exact: true }).locator('option').allTextContents();
  const label = labels.find((l) => l.startsWith(holder));
  if (!label) throw new Error(`no certificate option for ${holder}: ${labels.join(' | ')}`);
  return label;
}
