import BetterSqlite3 from 'better-sqlite3';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../core/auth/index.js';
import { createLogger } from '../../core/log/index.js';
import { createEndpoint, JSONAPI, jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';

/**
 * Reads are served from memory while the store is unchanged; these tests prove no read
 * is ever stale, whoever writes: this process, or another one on the same database.
 */
describe('cached reads', () => {
  let agent: TestAgent;
  let other: BetterSqlite3.Database;
  beforeAll(async () => {
    agent = await startTestAgent();
    other = new BetterSqlite3(path.join(agent.dataDir, 'sello.db'));
    other.pragma('busy_timeout = 5000');
  });
  afterAll(async () => {
    other.close();
    await agent.close();
  });

  const urls = async (key = agent.liveKey): Promise<string[]> => {
    const res = await agent.fetch('/api/v1/webhook-endpoints?sort=url', { headers: jsonApiHeaders(key) });
    return ((await res.json()) as { data: Array<{ attributes: { url: string } }> }).data.map((d) => d.attributes.url);
  };

  it('shows a change made through the API at once', async () => {
    const { id } = await createEndpoint(agent, agent.liveKey, { url: 'https://uno.example/h' });
    expect(await urls()).toEqual(['https://uno.example/h']);
    await agent.fetch(`/api/v1/webhook-endpoints/${id}`, {
      method: 'PATCH',
      headers: jsonApiHeaders(agent.liveKey),
      body: JSON.stringify({ data: { type: 'webhook_endpoint', id, attributes: { url: 'https://dos.example/h' } } }),
    });
    expect(await urls()).toEqual(['https://dos.example/h']);
    const one = await agent.fetch(`/api/v1/webhook-endpoints/${id}`, { headers: jsonApiHeaders(agent.liveKey) });
    expect(((await one.json()) as { data: { attributes: { url: string } } }).data.attributes.url).toBe('https://dos.example/h');
  });

  it('shows a change committed by another process at once', async () => {
    const before = await urls();
    other.prepare("update webhook_endpoints set url = 'https://otro-proceso.example/h'").run();
    const after = await urls();
    expect(after).not.toEqual(before);
    expect(after.every((u) => u === 'https://otro-proceso.example/h')).toBe(true);
  });

  it('refuses a key revoked by another process (the CLI) on the very next request', async () => {
    const { key, record } = createKey(agent.store, { family: 'b', environment: 'live', bookId: agent.book.id });
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(200);
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(200);
    other.prepare('update api_keys set revoked_at = ? where id = ?').run(new Date().toISOString(), record.id);
    expect((await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(key) })).status).toBe(401);
  });

  it('keeps callers apart: another book and the other environment never get a cached body', async () => {
    await createEndpoint(agent, agent.liveKey, { url: 'https://solo-live.example/h' });
    await urls();
    const other = agent.addBook('cache-ajeno');
    expect(await urls(other.key)).toEqual([]);
    expect(await urls(agent.testKey)).toEqual([]);
  });
});

/**
 * Repeat reads are answered before Koa (core/http/hot-reads.ts). These tests prove
 * that answer is the one the full pipeline gives, and that every refusal still goes
 * through the pipeline with its envelope.
 */
describe('repeat reads answered before the middleware', () => {
  let agent: TestAgent;
  const lines: Array<Record<string, unknown>> = [];
  const LIMIT = 12;
  beforeAll(async () => {
    agent = await startTestAgent({ rateLimitPerMinute: LIMIT }, createLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)));
    await createEndpoint(agent, agent.liveKey, { url: 'https://rapido.example/h' });
  });
  afterAll(async () => {
    await agent.close();
  });

  interface Raw {
    status: number;
    headers: Array<[string, string]>;
    body: Buffer;
  }
  /** A GET over a raw socket: header names in the order they were sent. */
  const get = (pathname: string, headers: Record<string, string>): Promise<Raw> =>
    new Promise((resolve, reject) => {
      const req = http.get(`${agent.baseUrl}${pathname}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const pairs: Array<[string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
        });
      });
      req.on('error', reject);
    });
  const cachedRequests = (): number => lines.filter((l) => l.msg === 'request' && l.cached === true).length;
  const url = '/api/v1/webhook-endpoints?page[limit]=5&sort=-url';

  it('gives the same status, headers (in order) and bytes as the full pipeline', async () => {
    const before = cachedRequests();
    const first = await get(url, jsonApiHeaders(agent.liveKey));
    expect(cachedRequests()).toBe(before);
    const second = await get(url, jsonApiHeaders(agent.liveKey));
    expect(cachedRequests()).toBe(before + 1);

    expect(second.status).toBe(200);
    expect(second.body.equals(first.body)).toBe(true);
    const varying = new Set(['x-request-id', 'ratelimit', 'date']);
    const stable = (r: Raw) => r.headers.map(([n, v]) => [n.toLowerCase(), varying.has(n.toLowerCase()) ? '*' : v]);
    expect(stable(second)).toEqual(stable(first));
    const header = (r: Raw, name: string) => r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
    expect(header(second, 'x-request-id')).not.toBe(header(first, 'x-request-id'));
    expect(header(second, 'ratelimit')).toMatch(/^default;r=\d+;t=\d+$/);
  });

  it('leaves every refusal of a cached URL to the pipeline, in its envelope', async () => {
    await get(url, jsonApiHeaders(agent.liveKey)); // cached
    const before = cachedRequests();

    const rebinding = await get(url, { ...jsonApiHeaders(agent.liveKey), Host: 'evil.example' });
    expect(rebinding.status).toBe(421);
    const html = await get(url, { ...jsonApiHeaders(agent.liveKey), Accept: 'text/html' });
    expect(html.status).toBe(406);
    expect(JSON.parse(html.body.toString()).errors[0].status).toBe('406');
    // Same book, same cached body, but a key without the resource's scope.
    const signingOnly = createKey(agent.store, { family: 'b', environment: 'live', bookId: agent.book.id, scopes: ['signing'] }).key;
    await get('/api/v1/signature-requests', jsonApiHeaders(signingOnly)); // the key is now known, and the store unchanged since
    expect((await get(url, jsonApiHeaders(signingOnly))).status).toBe(403);
    expect((await get(url, jsonApiHeaders(signingOnly))).status).toBe(403);
    expect((await get(url, { Accept: JSONAPI })).status).toBe(401);
    expect(cachedRequests()).toBe(before);
  });

  it('counts cached answers against the rate limit, then refuses with 429 and Retry-After', async () => {
    const { key } = createKey(agent.store, { family: 'b', environment: 'live', bookId: agent.book.id });
    const statuses: number[] = [];
    let refused: Raw | undefined;
    for (let i = 0; i < LIMIT + 3; i++) {
      const res = await get(url, jsonApiHeaders(key));
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429]);
    expect(refused!.headers.some(([n]) => n.toLowerCase() === 'retry-after')).toBe(true);
    // CONTRACT §4: rate limiting on Family B takes the fiscal envelope.
    expect(JSON.parse(refused!.body.toString()).error.code).toBe('rate_limited');
  });
});
