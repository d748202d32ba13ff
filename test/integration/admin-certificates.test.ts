/**
 * `POST /admin/api/certificates/p12` (issue 7, the Certificados screen): a `.p12` read by
 * the browser as base64 with its password. A wrong password, a file that is not a `.p12`
 * or a missing field answers by field in Spanish and stores nothing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

let agent: TestAgent;
let pki: TestPki;
let dir: string;
let p12: Buffer;

/** A `.p12` of a test-CA leaf made by openssl, as an office would export it. */
function p12File(password: string): Buffer {
  const issued = pki.issue({ subject: { commonName: 'LUIS TORRES', givenName: 'LUIS', surname: 'TORRES', serialNumber: '1712345678', country: 'EC' } });
  const key = path.join(dir, 'luis.key.pem');
  const cert = path.join(dir, 'luis.cert.pem');
  const out = path.join(dir, 'luis.p12');
  fs.writeFileSync(key, issued.privateKeyPem);
  fs.writeFileSync(cert, issued.certificatePem);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-certfile', pki.ca.certificatePath, '-out', out, '-passout', `pass:${password}`]);
  return fs.readFileSync(out);
}

beforeAll(async () => {
  dir = tempDir('sello-admin-p12-');
  pki = await createTestPki();
  p12 = p12File('clave-ñ');
  agent = await startTestAgent();
});
afterAll(async () => {
  await agent?.close();
  await pki?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

type Json = { data?: Record<string, unknown>; error?: { code: string; message: string }; errors?: Record<string, string[]> };

async function importP12(body: unknown): Promise<{ status: number; body: Json }> {
  const res = await agent.fetch('/admin/api/certificates/p12', {
    method: 'POST',
    headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const certificates = () => agent.store.sqlite.prepare('select id, source, fingerprint, p12_sealed is not null and p12 is null as has_p12 from certificates order by rowid').all();

describe('POST /admin/api/certificates/p12', () => {
  it('refuses a wrong password beside the password field, in Spanish, and stores nothing', async () => {
    const before = certificates();
    const { status, body } = await importP12({ file_base64: p12.toString('base64'), password: 'otra' });
    expect(status).toBe(400);
    expect(body.error?.code).toBe('p12_bad_password');
    expect(body.errors).toEqual({ password: [expect.stringContaining('La contraseña del archivo .p12 no es correcta')] });
    expect(certificates()).toEqual(before);
  });

  it('refuses a file that is not a .p12 beside the file field', async () => {
    const before = certificates();
    for (const file of [Buffer.from('%PDF-1.7 no soy un p12').toString('base64'), 'no es base64 ***']) {
      const { status, body } = await importP12({ file_base64: file, password: 'x' });
      expect(status, file).toBeGreaterThanOrEqual(400);
      expect(status, file).toBeLessThan(500);
      expect(Object.keys(body.errors ?? {}), file).toEqual(['file_base64']);
      expect(body.errors!.file_base64![0]).toMatch(/p12|base64/);
    }
    expect(certificates()).toEqual(before);
  });

  it('answers missing or wrong fields by field and stores nothing', async () => {
    const before = certificates();
    const missing = await importP12({});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ file_base64: ['Elija el archivo .p12.'], password: ['Escriba la contraseña del archivo .p12.'] });
    const empty = await importP12({ file_base64: '', password: 'x' });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ file_base64: ['Elija el archivo .p12.'] });
    const wrongTypes = await importP12({ file_base64: 12, password: 34, extra: true });
    expect(wrongTypes.status).toBe(422);
    expect(Object.keys(wrongTypes.body.errors ?? {}).sort()).toEqual(['extra', 'file_base64', 'password']);
    const notObject = await importP12('[]');
    expect(notObject.status).toBe(422);
    expect(certificates()).toEqual(before);
  });

  it('imports the right one: the certificate is listed, with the key and password kept sealed', async () => {
    const { status, body } = await importP12({ file_base64: p12.toString('base64'), password: 'clave-ñ' });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ environment: 'live', status: 'issued' });
    expect(JSON.stringify(body.data)).toContain('LUIS');
    const stored = certificates() as Array<{ id: string; source: string; has_p12: number }>;
    expect(stored).toEqual([expect.objectContaining({ id: body.data!.id, source: 'p12', has_p12: 1 })]);
    const list = (await (await agent.fetch('/admin/api/certificates', { headers: { Authorization: `Bearer ${agent.adminToken}` } })).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((c) => c.id)).toEqual([body.data!.id]);
    // The password is sealed, never kept in clear.
    const sealed = agent.store.sqlite.prepare('select p12_password_sealed as s from certificates').get() as { s: unknown };
    expect(String(sealed.s)).not.toContain('clave-ñ');
  });

  it('a second import of the same file updates it rather than adding a copy', async () => {
    const { status } = await importP12({ file_base64: p12.toString('base64'), password: 'clave-ñ' });
    expect(status).toBe(201);
    expect(certificates()).toHaveLength(1);
  });
});

describe('GET /admin/api/identification-types', () => {
  it('lists the catalog the test-certificate form picks legal_id_type from', async () => {
    const res = await agent.fetch('/admin/api/identification-types', { headers: { Authorization: `Bearer ${agent.adminToken}` } });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Array<{ code: string; authority_code: string; name: string }> };
    expect(data).toContainEqual(expect.objectContaining({ code: 'ec-cedula', authority_code: '05', name: 'Cédula' }));
  });
});
