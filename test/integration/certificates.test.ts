import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importP12, type CertificateObject } from '../../core/certificates/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const address = {
  line_1: 'Av. 9 de Octubre 100 y Malecón',
  locality: 'Rocafuerte',
  administrative_district_level_1: 'Guayas',
  administrative_district_level_2: 'Guayaquil',
  country: { code: 'EC', name: 'Ecuador' },
};
const principal = {
  first_name: 'María',
  middle_name: 'José',
  last_name: 'Núñez',
  second_last_name: 'Avilés',
  email: 'maria.nunez@contadores.ec',
  mobile_phone: '+593991234567',
  legal_id: '0912345678',
  legal_id_type: { type: 'ec-cedula', code: '05', name: 'Cédula' },
  address,
};
const ruc = { type: 'ec-ruc', code: '06', name: 'RUC' };
const organization = { legal_name: 'Contadores Asociados S.A.', tax_id_type: ruc, tax_id: '0991234567001', address, position: 'Contadora' };

interface AdminError {
  error: { code: string; message: string };
  errors?: Record<string, string[]>;
}

/** CONTRACT §10, §14 and spec Family A `/certificates`: issuance, lists per environment, bad input. */
describe('certificates over HTTP', () => {
  let agent: TestAgent;
  let pki: TestPki;
  let liveId: string;
  const issued: CertificateObject[] = [];

  const issue = (body: unknown) =>
    agent.fetch('/admin/api/test-certificates', {
      method: 'POST',
      headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const familyA = (pathname: string, key: string) => agent.fetch(pathname, { headers: { 'X-Api-Key': key } });
  const certificateRows = () => JSON.stringify(agent.store.sqlite.prepare('select id, type, status from certificates order by rowid').all());

  beforeAll(async () => {
    agent = await startTestAgent();
    pki = await createTestPki();
    // A live .p12 certificate, imported as `sello certs import-p12` does.
    const dir = tempDir('sello-certs-');
    const leafKey = path.join(dir, 'k.pem');
    const leafCert = path.join(dir, 'c.pem');
    const p12 = path.join(dir, 'ana.p12');
    fs.writeFileSync(leafKey, pki.leaf.privateKeyPem);
    fs.writeFileSync(leafCert, pki.leaf.certificatePem);
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', leafKey, '-in', leafCert, '-out', p12, '-passout', 'pass:clave']);
    liveId = (await importP12(agent.store, loadSecretBox(agent.dataDir), fs.readFileSync(p12), 'clave')).id;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await agent.close();
    await pki.cleanup();
  });

  it('issues test certificates through the admin API (201, the Certificate object)', async () => {
    for (const body of [
      { type: 'ec/instant', validity: 1, principal },
      { type: 'ec/individual', validity: 365, principal: { ...principal, position: 'Contadora' } },
      { type: 'ec/business-employee', validity: 1825, principal, organization },
    ]) {
      const res = await issue(body);
      const cert = (await res.json()) as CertificateObject;
      expect(res.status, JSON.stringify(cert)).toBe(201);
      expect(cert).toMatchObject({ type: body.type, validity: body.validity, environment: 'test', status: 'issued', principal: body.principal });
      expect(cert.id).toMatch(/^[0-9a-f-]{36}$/);
      const days = (Date.parse(cert.expiry) - Date.parse(cert.issued)) / 86_400_000;
      expect(Math.round(days)).toBe(body.validity);
      issued.push(cert);
    }
    expect(issued[2]!.organization).toEqual(organization);
  });

  it('lists only the key’s environment, with status and type filters', async () => {
    const test = (await (await familyA('/certificates', agent.testApiKey)).json()) as { data: CertificateObject[] };
    expect(test.data.map((c) => c.id)).toEqual(issued.map((c) => c.id));
    const live = (await (await familyA('/certificates', agent.liveApiKey)).json()) as { data: CertificateObject[] };
    expect(live.data.map((c) => c.id)).toEqual([liveId]);
    expect(live.data[0]).toMatchObject({ environment: 'live', type: 'ec/individual', status: 'issued', principal: { legal_id: '0912345678', first_name: 'ANA MARÍA' } });

    const instant = (await (await familyA('/certificates?type=ec/instant', agent.testApiKey)).json()) as { data: CertificateObject[] };
    expect(instant.data.map((c) => c.id)).toEqual([issued[0]!.id]);
    const drafts = (await (await familyA('/certificates?status=draft', agent.testApiKey)).json()) as { data: CertificateObject[] };
    expect(drafts.data).toEqual([]);
    const all = (await (await familyA('/certificates?status=issued', agent.testApiKey)).json()) as { data: CertificateObject[] };
    expect(all.data).toHaveLength(3);
  });

  it('refuses unknown filter values with a 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['status=revoked', 'status'],
      ['type=ec/gold', 'type'],
      ['type=a&type=b', 'type'],
    ] as const) {
      const res = await familyA(`/certificates?${query}`, agent.testApiKey);
      const body = (await res.json()) as { type: string; params: Record<string, string[]> };
      expect(res.status).toBe(400);
      expect(body.type).toBe('invalid_request_error');
      expect(Object.keys(body.params)).toEqual([param]);
    }
  });

  it('gets one certificate, and 404s for unknown or other-environment ids', async () => {
    const one = await familyA(`/certificates/${issued[1]!.id}`, agent.testApiKey);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(issued[1]);
    for (const [id, key] of [
      [issued[1]!.id, agent.liveApiKey],
      [liveId, agent.testApiKey],
      ['00000000-0000-4000-8000-000000000000', agent.testApiKey],
    ] as const) {
      const res = await familyA(`/certificates/${id}`, key);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(id) });
    }
    expect((await familyA('/certificates', 'sk_test_nope')).status).toBe(401);
  });

  it('refuses every bad issuance with 422 naming the field, and stores nothing', async () => {
    const before = certificateRows();
    const { email: _email, ...noEmail } = principal;
    const cases: Array<[unknown, string]> = [
      [{ type: 'ec/individual', validity: 30, principal }, 'validity'],
      [{ type: 'ec/instant', validity: 365, principal }, 'validity'],
      [{ type: 'ec/individual', validity: 365, principal: { ...principal, tax_id: '0912345678001', tax_id_type: ruc } }, 'principal.tax_id'],
      [{ type: 'ec/business-director', validity: 365, principal }, 'organization'],
      [{ type: 'ec/organization', validity: 365, principal }, 'organization'],
      [{ type: 'ec/individual', validity: 365, principal: { ...principal, legal_id_type: { type: 'ec-cedula', code: '06', name: 'Cédula' } } }, 'principal.legal_id_type'],
      [{ type: 'ec/business-director', validity: 365, principal, organization: { ...organization, tax_id_type: { type: 'pe-ruc', code: '06', name: 'RUC' } } }, 'organization.tax_id_type'],
      [{ type: 'ec/individual', validity: 365, principal: noEmail }, 'principal.email'],
      [{ type: 'ec/individual', validity: 365, principal: { ...principal, address: { ...address, line_1: '' } } }, 'principal.address.line_1'],
      [{ type: 'ec/individual', validity: 365 }, 'principal'],
    ];
    for (const [body, field] of cases) {
      const res = await issue(body);
      const err = (await res.json()) as AdminError;
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(err.error.code).toBe('validation_failed');
      expect(err.error.message).toContain(field);
      expect(Object.keys(err.errors ?? {})).toEqual([field]);
    }
    const notJson = await agent.fetch('/admin/api/test-certificates', { method: 'POST', headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    expect((await issue({ type: 'ec/instant', validity: 1, principal }).then((r) => r.status))).toBe(201);
    const unauthorized = await agent.fetch('/admin/api/test-certificates', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'ec/instant', validity: 1, principal }) });
    expect(unauthorized.status).toBe(401);
    // Only the one good request above added a row.
    expect(JSON.parse(certificateRows())).toHaveLength(JSON.parse(before).length + 1);
  });

  it('lists both environments in the admin API', async () => {
    const res = await agent.fetch('/admin/api/certificates', { headers: { Authorization: `Bearer ${agent.adminToken}` } });
    const body = (await res.json()) as { data: CertificateObject[] };
    expect(body.data.map((c) => c.environment)).toEqual(['live', 'test', 'test', 'test', 'test']);
  });
});
