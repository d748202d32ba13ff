import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent?.close());

type Json = Record<string, unknown> & { data: Record<string, unknown> & Array<Record<string, unknown>> };

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await agent.fetch(`/admin/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${agent.adminToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: res.status === 204 ? ({} as Json) : ((await res.json()) as Json) };
}

describe('GET /admin/api/status', () => {
  it('reports the base URL, version, pending signatures and failed deliveries', async () => {
    const { status, body } = await admin('GET', '/status');
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ base_url: agent.baseUrl, pending_signatures: 0, failed_deliveries: 0, last_errors: [] });
    expect(typeof body.data.version).toBe('string');
    expect(Array.isArray(body.data.pkcs11_modules)).toBe(true);
  });
});

describe('books', () => {
  it('lists and creates books with tenant and accounting_api', async () => {
    const created = await admin('POST', '/books', { slug: 'ferreteria-sur', tenant: 'oficina-central', name: 'Ferretería Sur', accounting_api: false });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ slug: 'ferreteria-sur', tenant: 'oficina-central', accounting_api: false });
    const list = await admin('GET', '/books');
    expect(list.body.data.map((b) => b.slug)).toEqual(['acme', 'ferreteria-sur']);
  });

  it('answers bad fields in Spanish by field and changes nothing', async () => {
    const before = snapshot(agent);
    const bad = await admin('POST', '/books', { slug: 'Con Espacios', tenant: '' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toMatchObject({ slug: [expect.stringContaining('minúsculas')], tenant: [expect.stringContaining('minúsculas')] });
    const dup = await admin('POST', '/books', { slug: 'acme', tenant: 'x' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors).toMatchObject({ slug: ['Ya existe un libro con este identificador.'] });
    expect(snapshot(agent)).toBe(before);
  });
});

describe('API keys', () => {
  it('creates a book key shown once, lists it by hint, and revokes it', async () => {
    const created = await admin('POST', '/api-keys', { book: 'acme', environment: 'test', name: 'contabilidad' });
    expect(created.status).toBe(201);
    const key = created.body.data.key as string;
    expect(key).toMatch(/^sello_test_/);
    const ok = await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) });
    expect(ok.status).toBe(200);

    const list = await admin('GET', `/api-keys?book=${agent.book.id}`);
    const listed = list.body.data.find((k) => k.id === created.body.data.id)!;
    expect(listed.hint).toBe(`sello_test_…${key.slice(-4)}`);
    expect(JSON.stringify(list.body)).not.toContain(key);

    const revoked = await admin('POST', `/api-keys/${created.body.data.id}/revoke`);
    expect(revoked.body.data.revoked_at).toEqual(expect.any(String));
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(401);
  });

  it('creates account (Family A) keys without a book', async () => {
    const created = await admin('POST', '/api-keys', { environment: 'live', name: 'facturador' });
    expect(created.body.data.key).toMatch(/^sk_live_/);
    expect((await admin('GET', '/api-keys')).body.data.some((k) => k.id === created.body.data.id)).toBe(true);
  });

  it('refuses an empty name and an unknown book', async () => {
    const before = snapshot(agent);
    const bad = await admin('POST', '/api-keys', { book: 'acme', environment: 'prod', name: '' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors as object).sort()).toEqual(['environment', 'name']);
    expect((await admin('POST', '/api-keys', { book: 'nadie', environment: 'live', name: 'x' })).status).toBe(404);
    expect(snapshot(agent)).toBe(before);
  });
});

describe('webhook endpoints per book', () => {
  it('creates with the secret shown once, and the Family B list sees it', async () => {
    const created = await admin('POST', '/books/acme/webhook-endpoints', { url: 'https://erp.example/hooks' });
    expect(created.status).toBe(201);
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const id = created.body.data.id as string;
    const jsonapi = (await (await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(agent.liveKey) })).json()) as { data: Array<{ id: string }> };
    expect(jsonapi.data.map((e) => e.id)).toContain(id);
    const list = await admin('GET', '/books/acme/webhook-endpoints');
    expect(list.body.data).toEqual([expect.objectContaining({ id, active: true, last_status: null })]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect((await admin('GET', '/books/acme/webhook-endpoints?environment=test')).body.data).toEqual([]);
  });

  it('pauses, resumes, rotates and deletes', async () => {
    const id = (await admin('POST', '/books/acme/webhook-endpoints', { url: 'https://erp.example/otro', secret: 'un-secreto-largo' })).body.data.id as string;
    expect((await admin('POST', `/webhook-endpoints/${id}/pause`)).body.data.active).toBe(false);
    expect((await admin('POST', `/webhook-endpoints/${id}/resume`)).body.data.active).toBe(true);
    const rotated = await admin('POST', `/webhook-endpoints/${id}/rotate-secret`);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect((await admin('DELETE', `/webhook-endpoints/${id}`)).status).toBe(204);
    expect((await admin('POST', `/webhook-endpoints/${id}/pause`)).status).toBe(404);
  });

  it('refuses a non-HTTPS URL and a short secret by field, changing nothing', async () => {
    const before = snapshot(agent);
    const bad = await admin('POST', '/books/acme/webhook-endpoints', { url: 'http://erp.example', secret: 'corto' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ url: ['La URL debe usar HTTPS (https://…).'], secret: ['El secreto debe tener al menos 8 caracteres.'] });
    expect((await admin('POST', '/books/acme/webhook-endpoints', { url: '' })).body.errors).toEqual({ url: ['Obligatorio.'] });
    expect(snapshot(agent)).toBe(before);
  });
});

describe('GET /admin/api/activity', () => {
  it('lists recent items and checks its filters', async () => {
    expect((await admin('GET', '/activity?type=signing')).status).toBe(200);
    expect((await admin('GET', '/activity?book=acme')).status).toBe(200);
    expect((await admin('GET', '/activity?type=nope')).status).toBe(400);
  });
});
