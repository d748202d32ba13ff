import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../core/auth/index.js';
import { createEndpoint, jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';

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
