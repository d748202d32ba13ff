/**
 * The issuer of a book and environment (CONTRACT §15, issue 16 point 1): `GET`/`PUT
 * /api/v1/issuer` and the admin API's `/admin/api/books/:book/issuer`, against a real agent
 * with real certificates: `.p12` files made by openssl from a test PKI and imported through the
 * admin API, a certificate registered as a token's, and a test certificate from the agent's
 * own test CA. Every bad input of issue 16 that concerns the issuer is a 422 that changes
 * nothing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import type { IssuedCertificate } from '../../core/certificates/test-ca.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { fiscalHeaders } from '../helpers/documents.js';
import { createTestPki, TEST_SUBJECT, type TestPki } from '../helpers/test-ca.js';

interface FiscalError {
  error: { code: string; message: string; meta?: { rules?: Record<string, string> } };
  errors?: Record<string, string[]>;
}
interface IssuerAnswer {
  data: Record<string, unknown> & { book_id: string; environment: string; updated_at: string; establishments: unknown[] };
  meta?: { notes: Record<string, string> };
}

/** A natural person's RUC: a valid cédula (modulo 10) + 001. */
const RUC = '1712345675001';

let agent: TestAgent;
let pki: TestPki;
let work: string;
const certs = { p12: '', token: '', expired: '', noDigitalSignature: '', ec: '', test: '' };

const admin = (pathname: string, init: RequestInit = {}) =>
  agent.fetch(pathname, { ...init, headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) } });
const put = (body: unknown, key = agent.liveKey) => agent.fetch('/api/v1/issuer', { method: 'PUT', headers: fiscalHeaders(key), body: JSON.stringify(body) });
const get = (key = agent.liveKey) => agent.fetch('/api/v1/issuer', { headers: { Authorization: `Bearer ${key}` } });
const issuerRows = () => JSON.stringify(agent.store.sqlite.prepare('select * from issuers order by book_id, environment').all());

function issuerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    country: 'EC',
    ruc: RUC,
    razon_social: 'Pérez López Ana María',
    nombre_comercial: 'Café Ñusta',
    dir_matriz: 'Av. Amazonas N34-451 y Atahualpa, Quito',
    establishments: [
      { code: '001', address: 'Av. Amazonas N34-451 y Atahualpa, Quito', emission_points: ['001', '002'] },
      { code: '002', address: 'Av. 9 de Octubre 1215 y Pedro Moncayo, Guayaquil', emission_points: ['001'] },
    ],
    obligado_contabilidad: true,
    contribuyente_especial: '5368',
    agente_retencion: '1',
    regimen: 'general',
    certificate_id: certs.p12,
    ...overrides,
  };
}

/** Imports `issued` as a `.p12` made by openssl, through the admin API; returns its id. */
async function importP12(name: string, issued: { certificatePem: string; privateKeyPem: string }): Promise<string> {
  const key = path.join(work, `${name}.key.pem`);
  const cert = path.join(work, `${name}.cert.pem`);
  const p12 = path.join(work, `${name}.p12`);
  fs.writeFileSync(key, issued.privateKeyPem);
  fs.writeFileSync(cert, issued.certificatePem);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12, '-passout', 'pass:clave']);
  const res = await admin('/admin/api/certificates/p12', { method: 'POST', body: JSON.stringify({ file_base64: fs.readFileSync(p12).toString('base64'), password: 'clave' }) });
  const body = (await res.json()) as { data: { id: string } };
  if (res.status !== 201) throw new Error(`import ${name}: ${res.status} ${JSON.stringify(body)}`);
  return body.data.id;
}

const subject = (commonName: string) => ({ ...TEST_SUBJECT, commonName });

beforeAll(async () => {
  agent = await startTestAgent();
  pki = await createTestPki();
  work = tempDir('sello-issuer-');
  certs.p12 = await importP12('ana', pki.leaf);
  certs.expired = await importP12(
    'caducado',
    pki.issue({ subject: subject('CERTIFICADO CADUCADO'), notBefore: new Date(Date.now() - 400 * 86_400_000), notAfter: new Date(Date.now() - 30 * 86_400_000) }),
  );
  certs.ec = await importP12('ec', pki.issue({ subject: subject('CLAVE EC'), keyType: 'ec' }));
  // keyUsage nonRepudiation only: the SRI refuses its signatures (error 39).
  const noDs = { key: path.join(work, 'no-ds.key.pem'), cert: path.join(work, 'no-ds.cert.pem') };
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', noDs.key, '-out', noDs.cert, '-days', '30', '-subj', '/C=EC/CN=SOLO NO REPUDIO', '-addext', 'keyUsage=critical,nonRepudiation'], { stdio: 'ignore' });
  certs.noDigitalSignature = await importP12('no-ds', { certificatePem: fs.readFileSync(noDs.cert, 'utf8'), privateKeyPem: fs.readFileSync(noDs.key, 'utf8') });
  const onToken: IssuedCertificate = pki.issue({ subject: subject('LUIS TORRES') });
  certs.token = registerTokenCertificate(agent.store, {
    modulePath: '/usr/lib/softhsm/libsofthsm2.so',
    tokenSerial: 'a1b2c3',
    tokenLabel: 'oficina',
    keyId: Buffer.from('01', 'hex'),
    certificate: onToken.certificate,
    chain: onToken.chain,
  }).id;
  const test = await admin('/admin/api/test-certificates', { method: 'POST', body: JSON.stringify({ type: 'ec/individual', validity: 365, principal: testPrincipal }) });
  expect(test.status).toBe(201);
  certs.test = ((await test.json()) as { id: string }).id;
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await pki?.cleanup();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Sends a bad write and checks: 422 `validation_failed`, the field named in Spanish, nothing changed. */
async function refused(send: () => Promise<Response>, field: string, pattern?: RegExp): Promise<FiscalError> {
  const before = issuerRows();
  const seenBefore = await (await get()).text();
  const res = await send();
  const body = (await res.json()) as FiscalError;
  expect(res.status, JSON.stringify(body)).toBe(422);
  expect(body.error.code).toBe('validation_failed');
  expect(Object.keys(body.errors ?? {}), JSON.stringify(body)).toContain(field);
  const message = body.errors![field]!.join(' ');
  if (pattern) expect(message).toMatch(pattern);
  // The envelope's message names the field too: curl users read that first.
  expect(body.error.message).toContain(field);
  expect(issuerRows()).toBe(before);
  expect(await (await get()).text()).toBe(seenBefore);
  return body;
}

describe('GET and PUT /api/v1/issuer', () => {
  it('answers 404 not_found, saying how to configure it, before any issuer exists', async () => {
    const res = await get();
    expect(res.status).toBe(404);
    const body = (await res.json()) as FiscalError;
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toMatch(/no tiene emisor .*producción.*PUT \/api\/v1\/issuer.*Emisor/);
  });

  it('stores the issuer of the key’s book and environment, and GET returns it', async () => {
    const res = await put(issuerBody());
    const body = (await res.json()) as IssuerAnswer;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual({ ...issuerBody(), book_id: agent.book.id, environment: 'live', updated_at: expect.any(String) });
    expect(body.meta).toBeUndefined();
    const again = await get();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ data: body.data });
    // The row readIssuer gives the fiscal writes.
    const row = agent.store.sqlite.prepare('select * from issuers').get() as { environment: string; certificate_id: string; body: string };
    expect(row).toMatchObject({ environment: 'live', certificate_id: certs.p12 });
    expect(JSON.parse(row.body)).toEqual(issuerBody());
  });

  it('replaces the issuer on a second PUT (optional fields left out or null disappear), keeping created_at', async () => {
    const createdAt = (agent.store.sqlite.prepare('select created_at from issuers').get() as { created_at: string }).created_at;
    const next = issuerBody({
      razon_social: '  Pérez López Ana María  ',
      nombre_comercial: null,
      contribuyente_especial: undefined,
      agente_retencion: null,
      regimen: 'rimpe_emprendedor',
      establishments: [{ code: '003', address: 'Calle Larga 7-12, Cuenca', emission_points: ['001', '010', '999'] }],
      certificate_id: certs.token,
    });
    const res = await put(next);
    const body = (await res.json()) as IssuerAnswer;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).not.toHaveProperty('nombre_comercial');
    expect(body.data).not.toHaveProperty('contribuyente_especial');
    expect(body.data).not.toHaveProperty('agente_retencion');
    expect(body.data).toMatchObject({ razon_social: 'Pérez López Ana María', regimen: 'rimpe_emprendedor', certificate_id: certs.token });
    expect(((await (await get()).json()) as IssuerAnswer).data).toEqual(body.data);
    expect(agent.store.sqlite.prepare('select created_at from issuers').get()).toEqual({ created_at: createdAt });
    // Back to the first body for the tests below.
    expect((await put(issuerBody())).status).toBe(200);
  });

  it('keeps the environments apart: a test key has its own issuer, with a test certificate or one of the office’s live ones', async () => {
    expect((await get(agent.testKey)).status).toBe(404);
    const withTest = await put(issuerBody({ certificate_id: certs.test }), agent.testKey);
    expect(withTest.status, await withTest.clone().text()).toBe(200);
    expect(((await withTest.json()) as IssuerAnswer).data.environment).toBe('test');
    // CONTRACT §15: the SRI's test environment checks real signatures.
    const withLive = await put(issuerBody({ certificate_id: certs.p12, razon_social: 'Pruebas con firma real' }), agent.testKey);
    expect(withLive.status, await withLive.clone().text()).toBe(200);
    expect(((await (await get(agent.testKey)).json()) as IssuerAnswer).data).toMatchObject({ environment: 'test', certificate_id: certs.p12, razon_social: 'Pruebas con firma real' });
    // The live issuer is untouched.
    expect(((await (await get()).json()) as IssuerAnswer).data).toMatchObject({ environment: 'live', razon_social: 'Pérez López Ana María' });
  });

  it('accepts a company RUC the SRI issued without a valid check digit, with a note saying it was not verified', async () => {
    // Third digit 9, failing both modulo-11 checks (python-stdnum #290): a real, active company's.
    const res = await put(issuerBody({ ruc: '0993370026001' }), agent.testKey);
    const body = (await res.json()) as IssuerAnswer;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.meta?.notes.ruc).toMatch(/sin comprobar su dígito verificador.*módulo 11/);
    expect((await put(issuerBody({ certificate_id: certs.test }), agent.testKey)).status).toBe(200);
  });
});

describe('bad input: 422 validation_failed by field path, and nothing changes', () => {
  it.each([
    ['a wrong check digit', '1712345674001', 'digito_verificador', /dígito verificador.*módulo 10|módulo 10/],
    ['a province that does not exist', '9912345675001', 'provincia', /provincia/],
    ['a third digit no RUC has', '1772345675001', 'tercer_digito', /tercer dígito/],
  ])('refuses a RUC with %s, naming the rule', async (_what, ruc, rule, pattern) => {
    const body = await refused(() => put(issuerBody({ ruc })), 'ruc', pattern);
    expect(body.error.meta?.rules?.ruc).toBe(rule);
  });

  it.each([
    ['a RUC that does not end in 001', { ruc: '1712345675002' }, 'ruc', /13 dígitos que terminan en 001/],
    ['a RUC with dashes', { ruc: '171234567-5001' }, 'ruc', /sin guiones/],
    ['a short establishment code', { establishments: [{ code: '1', address: 'Quito', emission_points: ['001'] }] }, 'establishments[0].code', /tres dígitos/],
    ['establishment 000', { establishments: [{ code: '000', address: 'Quito', emission_points: ['001'] }] }, 'establishments[0].code', /desde 001/],
    [
      'a repeated establishment',
      { establishments: [{ code: '001', address: 'Quito', emission_points: ['001'] }, { code: '001', address: 'Guayaquil', emission_points: ['001'] }] },
      'establishments[1].code',
      /repetido/,
    ],
    ['a letter in an emission point', { establishments: [{ code: '001', address: 'Quito', emission_points: ['001', 'A01'] }] }, 'establishments[0].emission_points[1]', /tres dígitos/],
    ['a repeated emission point', { establishments: [{ code: '001', address: 'Quito', emission_points: ['002', '002'] }] }, 'establishments[0].emission_points[1]', /repetido/],
    ['no emission point', { establishments: [{ code: '001', address: 'Quito', emission_points: [] }] }, 'establishments[0].emission_points', /al menos un punto de emisión/],
    ['no establishment', { establishments: [] }, 'establishments', /al menos un establecimiento/],
    ['an establishment without address', { establishments: [{ code: '001', emission_points: ['001'] }] }, 'establishments[0].address', /obligatorio/],
    ['a missing razon_social', { razon_social: undefined }, 'razon_social', /obligatorio/],
    ['a missing dir_matriz', { dir_matriz: undefined }, 'dir_matriz', /obligatorio/],
    ['a missing certificate_id', { certificate_id: undefined }, 'certificate_id', /obligatorio/],
    ['obligado_contabilidad as "SI"', { obligado_contabilidad: 'SI' }, 'obligado_contabilidad', /true o false/],
    ['a razon_social longer than the XSD allows', { razon_social: 'Ñ'.repeat(301) }, 'razon_social', /hasta 300 caracteres/],
    ['a line break in dir_matriz', { dir_matriz: 'Av. Amazonas\nQuito' }, 'dir_matriz', /saltos de línea/],
    ['a blank nombre_comercial', { nombre_comercial: '   ' }, 'nombre_comercial', /vacío/],
    ['a contribuyente_especial of two characters', { contribuyente_especial: '12' }, 'contribuyente_especial', /de 3 a 13/],
    ['an agente_retencion that is not a number', { agente_retencion: 'NAC-DNCRASC20-00000001' }, 'agente_retencion', /de 1 a 8 dígitos/],
    ['an unknown regimen', { regimen: 'rise' }, 'regimen', /general, rimpe_emprendedor, rimpe_negocio_popular/],
    ['an unknown field', { colour: 'azul' }, 'colour', /campo no admitido/],
    ['another country', { country: 'CO' }, 'country', /"EC"/],
  ])('refuses %s', async (_what, overrides, field, pattern) => {
    await refused(() => put(issuerBody(overrides)), field, pattern);
  });

  it('names every problem of a body at once: schema, RUC and certificate', async () => {
    const body = await refused(
      () => put(issuerBody({ ruc: '1712345674001', razon_social: '', certificate_id: 'no-existe', establishments: [{ code: '01', address: 'Quito', emission_points: ['001'] }] })),
      'ruc',
    );
    expect(Object.keys(body.errors!).sort()).toEqual(['certificate_id', 'establishments[0].code', 'razon_social', 'ruc']);
    expect(body.error.meta?.rules).toEqual({ ruc: 'digito_verificador', certificate_id: 'certificate_not_found' });
  });

  it.each([
    ['an unknown certificate', () => 'cert-que-no-existe', 'certificate_not_found', /no existe el certificado cert-que-no-existe/],
    ['an expired certificate', () => certs.expired, 'certificate_expired', /caducó el \d{4}-\d{2}-\d{2}/],
    ['a certificate without the digitalSignature key usage', () => certs.noDigitalSignature, 'certificate_key_usage', /firma digital.*digitalSignature.*error 39/],
    ['a certificate with an EC key', () => certs.ec, 'certificate_key_type', /es EC;.*solo admiten claves RSA/],
    ['a test certificate for a live issuer', () => certs.test, 'certificate_environment', /certificado de prueba.*token o de un archivo \.p12/],
  ])('refuses %s, naming certificate_id with the reason', async (_what, id, rule, pattern) => {
    const body = await refused(() => put(issuerBody({ certificate_id: id() })), 'certificate_id', pattern);
    expect(body.error.meta?.rules?.certificate_id).toBe(rule);
  });

  it('refuses the same bad certificates for a test issuer, except the environment rule', async () => {
    const before = await (await get(agent.testKey)).text();
    for (const id of [certs.expired, certs.noDigitalSignature, certs.ec, 'cert-que-no-existe']) {
      const res = await put(issuerBody({ certificate_id: id }), agent.testKey);
      expect(res.status).toBe(422);
      expect(Object.keys(((await res.json()) as FiscalError).errors!)).toEqual(['certificate_id']);
    }
    expect(await (await get(agent.testKey)).text()).toBe(before);
  });

  it('refuses a Peruvian issuer with one clear message: Peru is not supported yet', async () => {
    const body = await refused(
      () => put({ country: 'PE', ruc: '20100066603', razon_social: 'Contadores del Sur S.A.C.', address: { ubigeo: '150101' }, sol_user: 'MODDATOS', certificate_id: certs.p12 }),
      'country',
      /todavía no emite comprobantes para Perú/,
    );
    expect(Object.keys(body.errors!)).toEqual(['country']);
  });

  it('answers a body that is not JSON with 400, another content type with 415, a non-object with 422', async () => {
    const before = issuerRows();
    const malformed = await agent.fetch('/api/v1/issuer', { method: 'PUT', headers: fiscalHeaders(agent.liveKey), body: '{"ruc": ' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as FiscalError).error.code).toBe('invalid_json');
    const form = await agent.fetch('/api/v1/issuer', { method: 'PUT', headers: { Authorization: `Bearer ${agent.liveKey}`, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'ruc=1' });
    expect(form.status).toBe(415);
    await refused(() => put(['no', 'es', 'un', 'objeto']), 'body', /objeto JSON/);
    expect(issuerRows()).toBe(before);
  });
});

describe('who may read and write the issuer', () => {
  it('answers a key without the accounting scope with 403 forbidden, as other fiscal routes do', async () => {
    const { key } = agent.addBook('solo-firma', { scopes: ['signing'] });
    for (const res of [await get(key), await put(issuerBody(), key), await agent.fetch('/api/v1/documents/x', { headers: { Authorization: `Bearer ${key}` } })]) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as FiscalError).error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('accounting') });
    }
  });

  it('answers a book without accounting_api with 403 forbidden', async () => {
    const { key } = agent.addBook('sin-api', { accountingApi: false });
    const res = await put(issuerBody(), key);
    expect(res.status).toBe(403);
    expect(((await res.json()) as FiscalError).error.code).toBe('forbidden');
  });

  it('answers a Family A key, or none, with 401 in the fiscal envelope', async () => {
    const before = issuerRows();
    const callers: Array<Record<string, string>> = [{ 'X-Api-Key': agent.liveApiKey }, { Authorization: `Bearer ${agent.liveApiKey}` }, {}];
    for (const headers of callers) {
      const res = await agent.fetch('/api/v1/issuer', { method: 'PUT', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(issuerBody()) });
      expect(res.status).toBe(401);
      expect(((await res.json()) as FiscalError).error.code).toBe('unauthorized');
    }
    expect(issuerRows()).toBe(before);
  });

  it('never shows one book’s issuer to another book’s key', async () => {
    const { key } = agent.addBook('otra-empresa');
    expect((await get(key)).status).toBe(404);
  });
});

describe('the admin API (the Emisor screen)', () => {
  it('reads and writes the issuer of a book and environment with the same checks', async () => {
    const url = `/admin/api/books/${agent.book.slug}/issuer?environment=test`;
    const seen = (await (await admin(url)).json()) as IssuerAnswer;
    expect(seen).toEqual(await (await get(agent.testKey)).json());

    const before = issuerRows();
    const bad = await admin(url, { method: 'PUT', body: JSON.stringify(issuerBody({ certificate_id: certs.expired })) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as FiscalError).errors?.certificate_id?.[0]).toMatch(/caducó/);
    expect(issuerRows()).toBe(before);

    const good = await admin(url, { method: 'PUT', body: JSON.stringify(issuerBody({ razon_social: 'Desde la administración', certificate_id: certs.test })) });
    expect(good.status).toBe(200);
    expect(((await (await get(agent.testKey)).json()) as IssuerAnswer).data).toMatchObject({ razon_social: 'Desde la administración', certificate_id: certs.test });
    // Live by default, like every per-book admin route; the live issuer still has its own certificate.
    expect(((await (await admin(`/admin/api/books/${agent.book.id}/issuer`)).json()) as IssuerAnswer).data).toMatchObject({ environment: 'live', certificate_id: certs.p12 });
  });

  it('answers an unknown book with 404, a bad environment with 400, a book without issuer with 404', async () => {
    expect((await admin('/admin/api/books/no-existe/issuer')).status).toBe(404);
    expect((await admin(`/admin/api/books/${agent.book.slug}/issuer?environment=prod`)).status).toBe(400);
    agent.addBook('vacio');
    const none = await admin('/admin/api/books/vacio/issuer?environment=live');
    expect(none.status).toBe(404);
    expect(((await none.json()) as FiscalError).error.message).toMatch(/no tiene emisor/);
  });

  it('needs the session’s CSRF token to write with a cookie', async () => {
    const issued = agent.issueAdminCookie();
    const cookie = `${issued.name}=${issued.value}`;
    const csrf = ((await (await agent.fetch('/admin/api/session', { headers: { Cookie: cookie } })).json()) as { data: { csrf_token: string } }).data.csrf_token;
    const url = `/admin/api/books/${agent.book.slug}/issuer?environment=test`;
    const body = JSON.stringify(issuerBody({ razon_social: 'Con cookie', certificate_id: certs.test }));
    const before = issuerRows();
    const without = await agent.fetch(url, { method: 'PUT', headers: { Cookie: cookie, 'Content-Type': 'application/json' }, body });
    expect(without.status).toBe(403);
    expect(issuerRows()).toBe(before);
    const withToken = await agent.fetch(url, { method: 'PUT', headers: { Cookie: cookie, 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body });
    expect(withToken.status).toBe(200);
    expect((await agent.fetch('/admin/api/books/acme/issuer?environment=test', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body })).status).toBe(401);
  });
});
