/**
 * What the invoice tests share (CONTRACT §15): a real agent whose SRI addresses point at a fake
 * SRI, an issuer configured through `PUT /api/v1/issuer` with a real certificate (a test
 * certificate of the agent's test CA for the test environment; a `.p12` made by openssl and
 * imported through the admin API for the live one), valid invoice bodies dated today in
 * Ecuador, and waits on an invoice's status.
 *
 * @example
 *   const rig = await startInvoiceRig();
 *   const { status, json } = await rig.post(rig.invoiceBody('ERP-1'));
 *   await rig.waitForStatus(json.data.id, ['authorized']);
 *   await rig.close();
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { issueTestCertificate, openDataTestCa, parseTestCertificateRequest } from '../../core/certificates/index.js';
import type { ConfigOverrides } from '../../core/config.js';
import { ecuadorDate } from '../../core/fiscal/sri/index.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import { createEndpoint, startTestAgent, type TestAgent } from './agent.js';
import { testPrincipal } from './certificates.js';
import { fiscalHeaders } from './documents.js';
import { startFakeSri, type FakeSri, type FakeSriOptions } from './fake-sri/index.js';
import { startReceiver, type Receiver } from './receiver.js';
import { createTestPki, type TestPki } from './test-ca.js';

/** A sociedad privada RUC with a valid modulo-11 digit. */
export const ISSUER_RUC = '1792146739001';
/** A cédula with a valid modulo-10 digit. */
export const CUSTOMER_CEDULA = '1714307103';

export interface InvoiceAnswer {
  status: number;
  headers: Headers;
  json: {
    data?: Record<string, unknown> & { id: string; numero: string; access_key: string; status: string };
    error?: { code: string; message: string };
    errors?: Record<string, string[]>;
  };
}

export interface InvoiceRig {
  agent: TestAgent;
  sri: FakeSri;
  /** The issuer's certificate of the test environment (a test certificate) and of the live one (a .p12), when set up. */
  testCertificateId: string;
  liveCertificateId?: string;
  invoiceBody(externalRef: string, overrides?: Record<string, unknown>): Record<string, unknown>;
  post(body: unknown, key?: string): Promise<InvoiceAnswer>;
  get(id: string, key?: string): Promise<{ status: number; json: { data: Record<string, unknown> & { status: string; sri: { state: string; last_error: string | null } } } }>;
  waitForStatus(id: string, statuses: string[], options?: { key?: string; timeoutMs?: number }): Promise<Record<string, unknown> & { status: string }>;
  close(): Promise<void>;
}

export interface RigOptions {
  sri?: FakeSriOptions;
  config?: ConfigOverrides;
  /** Also a live issuer, with a .p12 of this PKI's leaf imported as a live certificate. */
  livePki?: TestPki;
  /** Leave the issuer out (the emisor_not_configured tests). */
  noIssuer?: boolean;
}

export function issuerBody(certificateId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    country: 'EC',
    ruc: ISSUER_RUC,
    razon_social: 'Contadores Andinos Pérez & Asociados S.A.',
    nombre_comercial: 'Café Ñusta',
    dir_matriz: 'Av. Amazonas N34-451 y Atahualpa, Quito',
    establishments: [
      { code: '001', address: 'Av. Amazonas N34-451 y Atahualpa, Quito', emission_points: ['001', '002'] },
      { code: '002', address: 'Calle Bolívar 5-12, Cuenca', emission_points: ['001'] },
    ],
    obligado_contabilidad: true,
    regimen: 'general',
    certificate_id: certificateId,
    ...overrides,
  };
}

/** A valid invoice body dated today in Ecuador: 2 × 50.00 at 15 % and 1 × 20.00 at 0 %, total 135.00. */
export function validInvoiceBody(externalRef: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_ref: externalRef,
    issue_date: ecuadorDate(new Date()),
    establishment: '001',
    emission_point: '001',
    currency: 'USD',
    customer: {
      name: 'María José Núñez Peñaherrera',
      tax_id: CUSTOMER_CEDULA,
      tax_id_type: { type: 'ec-cedula', code: '05' },
      email: 'mjnunez@example.ec',
      address: 'Calle Sucre 1-23 y Bolívar, Cuenca',
    },
    lines: [
      { code: 'ASE-01', description: 'Asesoría contable mensual', quantity: '2', unit_price: '50.00', discount: '0.00', taxes: [{ type: 'ec-iva-15' }] },
      { code: 'LIB-02', description: 'Libro de contabilidad básica', quantity: '1', unit_price: '20.00', discount: '0.00', taxes: [{ type: 'ec-iva-0' }] },
    ],
    payments: [{ method: '20', amount: '135.00' }],
    additional_info: [{ name: 'Orden', value: 'OC-7' }],
    grand_total: '135.00',
    ...overrides,
  };
}

async function adminJson(agent: TestAgent, pathname: string, body: unknown): Promise<{ status: number; json: { data: { id: string } } }> {
  const res = await agent.fetch(pathname, {
    method: 'POST',
    headers: { Authorization: `Bearer ${agent.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { data: { id: string } } };
}

/** Configures the issuer of the agent's book in the key's environment; throws on anything but 200. */
export async function putIssuer(agent: TestAgent, key: string, body: Record<string, unknown>): Promise<void> {
  const res = await agent.fetch('/api/v1/issuer', { method: 'PUT', headers: fiscalHeaders(key), body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`PUT /api/v1/issuer: ${res.status} ${await res.text()}`);
}

/** Imports `pki`'s leaf as a live .p12 (openssl, then the admin API); returns its id. */
export async function importLeafP12(agent: TestAgent, pki: TestPki): Promise<string> {
  const dir = fs.mkdtempSync(path.join(agent.dataDir, 'p12-'));
  const key = path.join(dir, 'leaf.key.pem');
  const cert = path.join(dir, 'leaf.cert.pem');
  const p12 = path.join(dir, 'leaf.p12');
  fs.writeFileSync(key, pki.leaf.privateKeyPem);
  fs.writeFileSync(cert, pki.leaf.certificatePem);
  execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12, '-passout', 'pass:clave']);
  const res = await adminJson(agent, '/admin/api/certificates/p12', { file_base64: fs.readFileSync(p12).toString('base64'), password: 'clave' });
  if (res.status !== 201) throw new Error(`import p12: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.id;
}

export async function startInvoiceRig(options: RigOptions = {}): Promise<InvoiceRig> {
  const sri = await startFakeSri(options.sri);
  const agent = await startTestAgent({ deliveryTimeScale: 0.001, sriTestUrl: sri.baseUrl, sriProductionUrl: sri.baseUrl, rateLimitPerMinute: 1_000_000, ...options.config });
  const ca = await openDataTestCa(agent.dataDir);
  const testCert = issueTestCertificate(agent.store, loadSecretBox(agent.dataDir), ca, parseTestCertificateRequest({ type: 'ec/individual', validity: 365, principal: testPrincipal }));
  let liveCertificateId: string | undefined;
  if (!options.noIssuer) {
    await putIssuer(agent, agent.testKey, issuerBody(testCert.id));
    if (options.livePki) {
      liveCertificateId = await importLeafP12(agent, options.livePki);
      await putIssuer(agent, agent.liveKey, issuerBody(liveCertificateId));
    }
  }

  const rig: InvoiceRig = {
    agent,
    sri,
    testCertificateId: testCert.id,
    ...(liveCertificateId ? { liveCertificateId } : {}),
    invoiceBody: validInvoiceBody,
    async post(body, key = agent.testKey) {
      const res = await agent.fetch('/api/v1/invoices', { method: 'POST', headers: fiscalHeaders(key), body: typeof body === 'string' ? body : JSON.stringify(body) });
      return { status: res.status, headers: res.headers, json: (await res.json()) as InvoiceAnswer['json'] };
    },
    async get(id, key = agent.testKey) {
      const res = await agent.fetch(`/api/v1/invoices/${id}`, { headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, json: (await res.json()) as Awaited<ReturnType<InvoiceRig['get']>>['json'] };
    },
    async waitForStatus(id, statuses, o = {}) {
      const until = Date.now() + (o.timeoutMs ?? 15_000);
      let last: unknown;
      for (;;) {
        const { status, json } = await rig.get(id, o.key);
        last = json;
        if (status === 200 && statuses.includes(json.data.status)) return json.data;
        if (Date.now() > until) throw new Error(`invoice ${id}: not ${statuses.join('|')} in time; last ${JSON.stringify(last).slice(0, 800)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      await agent.close();
      await sri.close();
    },
  };
  return rig;
}

/** POST, GET and wait on one comprobante route of CONTRACT §15 (`/api/v1/credit-notes`…), as the tests of each type use them. */
export interface ComprobanteClient {
  post(body: unknown, key?: string): Promise<InvoiceAnswer>;
  get(id: string, key?: string): Promise<{ status: number; json: { data: Record<string, unknown> & { status: string } } }>;
  waitFor(id: string, statuses: string[], key?: string): Promise<Record<string, unknown> & { status: string }>;
}

export function comprobanteClient(rig: InvoiceRig, route: string): ComprobanteClient {
  const client: ComprobanteClient = {
    async post(body, key = rig.agent.testKey) {
      const res = await rig.agent.fetch(route, { method: 'POST', headers: fiscalHeaders(key), body: JSON.stringify(body) });
      return { status: res.status, headers: res.headers, json: (await res.json()) as InvoiceAnswer['json'] };
    },
    async get(id, key = rig.agent.testKey) {
      const res = await rig.agent.fetch(`${route}/${id}`, { headers: { Authorization: `Bearer ${key}` } });
      return { status: res.status, json: (await res.json()) as { data: Record<string, unknown> & { status: string } } };
    },
    async waitFor(id, statuses, key = rig.agent.testKey) {
      const until = Date.now() + 15_000;
      for (;;) {
        const { status, json } = await client.get(id, key);
        if (status === 200 && statuses.includes(json.data.status)) return json.data;
        if (Date.now() > until) throw new Error(`${route}/${id}: not ${statuses.join('|')} in time; last ${JSON.stringify(json).slice(0, 800)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  return client;
}

/** How many documents and submission jobs the store has: what a refused body must leave as it was. */
export function storeCounts(agent: TestAgent): { documents: number; submissions: number } {
  const count = (table: string) => agent.store.statement<[], { n: number }>(`select count(*) as n from ${table}`).get()!.n;
  return { documents: count('documents'), submissions: count('fiscal_submissions') };
}

/** An invoice rig with a live issuer too, and an HTTPS receiver subscribed with `secret` to the live key's webhooks. */
export interface WebhookRig {
  rig: InvoiceRig;
  receiver: Receiver;
  close(): Promise<void>;
}

export async function startWebhookRig(secret: string): Promise<WebhookRig> {
  const pki = await createTestPki();
  const rig = await startInvoiceRig({ livePki: pki, config: { caFile: pki.ca.certificatePath } });
  const receiver = await startReceiver(pki);
  await createEndpoint(rig.agent, rig.agent.liveKey, { url: receiver.url, secret });
  return {
    rig,
    receiver,
    async close() {
      await rig.close();
      await receiver.close();
      await pki.cleanup();
    },
  };
}
