import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../core/auth/index.js';
import { createEndpoint, jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

const unauthorizedFiscal = { error: { code: 'unauthorized', message: 'Clave de API ausente, no válida o revocada.' } };

describe('Family B authentication', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  const list = (headers: Record<string, string>) => agent.fetch('/api/v1/webhook-endpoints', { headers });

  it('answers a missing, malformed or unknown key with the same 401 fiscal envelope', async () => {
    for (const headers of [{}, { Authorization: 'Basic abc' }, { Authorization: 'Bearer sello_live_nope' }, { Authorization: `Bearer ${agent.liveKey}x` }] as Array<Record<string, string>>) {
      const res = await list(headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(unauthorizedFiscal);
    }
  });

  it('answers a revoked key with 401 and a POST with it changes nothing', async () => {
    const { key, record } = createKey(agent.store, { family: 'b', environment: 'live', bookId: agent.book.id });
    expect((await list({ Authorization: `Bearer ${key}` })).status).toBe(200);
    revokeKey(agent.store, record.id);
    const before = snapshot(agent);
    const res = await agent.fetch('/api/v1/webhook-endpoints', {
      method: 'POST',
      headers: jsonApiHeaders(key),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: '12345678' } } }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(unauthorizedFiscal);
    expect(snapshot(agent)).toBe(before);
  });

  it('answers a Family A key used as a Bearer key with 401', async () => {
    const res = await list({ Authorization: `Bearer ${agent.liveApiKey}` });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(unauthorizedFiscal);
  });

  it('answers a book without accounting_api with 403 forbidden', async () => {
    const { key } = agent.addBook('sin-api', { accountingApi: false });
    const res = await list({ Authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'forbidden' } });
  });

  it('answers a key without the accounting scope with 403 on webhook endpoints', async () => {
    const { key } = agent.addBook('solo-firma', { scopes: ['signing'] });
    const res = await list({ Authorization: `Bearer ${key}` });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'forbidden', message: 'La clave no tiene el ámbito "accounting".' } });
    // Catalogs need no particular scope.
    expect((await agent.fetch('/api/v1/tax-types', { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('never shows a test key the live endpoints, nor the reverse', async () => {
    const live = await createEndpoint(agent, agent.liveKey, { url: 'https://live.example/h' });
    const test = await createEndpoint(agent, agent.testKey, { url: 'https://test.example/h' });
    const before = snapshot(agent);
    const asTest = await agent.fetch(`/api/v1/webhook-endpoints/${live.id}`, { headers: jsonApiHeaders(agent.testKey) });
    expect(asTest.status).toBe(404);
    const patch = await agent.fetch(`/api/v1/webhook-endpoints/${live.id}`, {
      method: 'PATCH',
      headers: jsonApiHeaders(agent.testKey),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', id: live.id, attributes: { active: false } } }),
    });
    expect(patch.status).toBe(404);
    expect((await agent.fetch(`/api/v1/webhook-endpoints/${live.id}`, { method: 'DELETE', headers: jsonApiHeaders(agent.testKey) })).status).toBe(404);
    expect(snapshot(agent)).toBe(before);
    const testList = (await (await list(jsonApiHeaders(agent.testKey))).json()) as { data: Array<{ id: string }> };
    expect(testList.data.map((d) => d.id)).toContain(test.id);
    expect(testList.data.map((d) => d.id)).not.toContain(live.id);
  });
});

describe('Family A authentication', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  it('answers a missing or unknown X-Api-Key with 401 authentication_error', async () => {
    for (const headers of [{}, { 'X-Api-Key': 'sk_live_nope' }] as Array<Record<string, string>>) {
      const res = await agent.fetch('/no-such-download/abc', { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ type: 'authentication_error', message: 'Clave de API ausente, no válida o revocada.' });
    }
    const known = await agent.fetch('/no-such-download/abc', { headers: { 'X-Api-Key': agent.testApiKey } });
    expect(known.status).toBe(404);
    expect(await known.json()).toMatchObject({ type: 'invalid_request_error' });
  });

  it('answers a Family B key in X-Api-Key on a Family A path with 401', async () => {
    const res = await agent.fetch('/no-such-download/abc', { headers: { 'X-Api-Key': agent.liveKey } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: 'authentication_error' });
  });

  it('answers a Family B key in X-Api-Key with 401 authentication_error', async () => {
    const res = await agent.fetch('/api/v1/webhook-endpoints', { headers: { 'X-Api-Key': agent.liveKey } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(unauthorizedFiscal);
  });
});

describe('rate limit', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent({ rateLimitPerMinute: 5 });
  });
  afterAll(() => agent.close());

  it('sends RateLimit headers and answers the request past the limit with 429 and Retry-After', async () => {
    const headers = { Authorization: `Bearer ${agent.liveKey}` };
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await agent.fetch('/api/v1/tax-types', { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('default;q=5;w=60');
      remaining.push(res.headers.get('ratelimit')!.split(';')[1]!);
    }
    expect(remaining).toEqual(['r=4', 'r=3', 'r=2', 'r=1', 'r=0']);
    const limited = await agent.fetch('/api/v1/tax-types', { headers });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // Another key has its own budget.
    const other = createKey(agent.store, { family: 'b', environment: 'test', bookId: agent.book.id }).key;
    expect((await agent.fetch('/api/v1/tax-types', { headers: { Authorization: `Bearer ${other}` } })).status).toBe(200);
  });

  it('limits a key on every route, writes included, without changing anything', async () => {
    const before = snapshot(agent);
    const res = await agent.fetch('/api/v1/webhook-endpoints', {
      method: 'POST',
      headers: jsonApiHeaders(agent.liveKey),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', attributes: { url: 'https://x.example', secret: '12345678' } } }),
    });
    expect(res.status).toBe(429);
    expect(snapshot(agent)).toBe(before);
  });
});
