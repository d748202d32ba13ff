import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAgent, type Agent, type StartOptions } from '../../core/app.js';
import { createBook, createKey, type Book, type Environment } from '../../core/auth/index.js';
import { loadConfig, type ConfigOverrides } from '../../core/config.js';
import { createLogger, type Logger } from '../../core/log/index.js';

export interface TestAgent extends Agent {
  dataDir: string;
  /** A book with accounting_api and its live and test Family B keys. */
  book: Book;
  liveKey: string;
  testKey: string;
  /** Family A keys of the account. */
  liveApiKey: string;
  testApiKey: string;
  /** Creates another book and a Family B key for it. */
  addBook(slug: string, options?: { accountingApi?: boolean; environment?: Environment; scopes?: Array<'accounting' | 'signing'> }): { book: Book; key: string };
  /** `fetch` against the agent with a path. */
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  /** Stops the agent and removes its data folder. */
  close(): Promise<void>;
}

export function tempDir(prefix = 'sello-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A real agent on a free port with a temporary data folder; `options`: what tests give `startAgent` besides the log. */
export async function startTestAgent(overrides: ConfigOverrides = {}, log: Logger = createLogger('silent'), options: Omit<StartOptions, 'log'> = {}): Promise<TestAgent> {
  const dataDir = overrides.dataDir ?? tempDir();
  const config = loadConfig({ port: 0, logLevel: 'silent', ...overrides, dataDir }, {});
  const agent = await startAgent(config, { ...options, log });
  const book = createBook(agent.store, { slug: 'acme', tenantSlug: 'oficina-central', name: 'ACME S.A.' });
  const liveKey = createKey(agent.store, { family: 'b', environment: 'live', bookId: book.id, name: 'erp' }).key;
  const testKey = createKey(agent.store, { family: 'b', environment: 'test', bookId: book.id, name: 'erp-pruebas' }).key;
  const liveApiKey = createKey(agent.store, { family: 'a', environment: 'live' }).key;
  const testApiKey = createKey(agent.store, { family: 'a', environment: 'test' }).key;
  return {
    ...agent,
    dataDir,
    book,
    liveKey,
    testKey,
    liveApiKey,
    testApiKey,
    addBook(slug, options = {}) {
      const b = createBook(agent.store, { slug, tenantSlug: `${slug}-tenant`, accountingApi: options.accountingApi ?? true });
      const k = createKey(agent.store, {
        family: 'b',
        environment: options.environment ?? 'live',
        bookId: b.id,
        ...(options.scopes ? { scopes: options.scopes } : {}),
      }).key;
      return { book: b, key: k };
    },
    fetch: (pathname, init) => fetch(`${agent.baseUrl}${pathname}`, init),
    async close() {
      await agent.stop();
      if (!overrides.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const JSONAPI = 'application/vnd.api+json';

/** Headers of a JSON:API call with a Family B key. */
export function jsonApiHeaders(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'Content-Type': JSONAPI, Accept: JSONAPI, ...extra };
}

/** Every row of the tables a request could change, to prove a bad request changed nothing. */
export function snapshot(agent: Agent): string {
  const tables = ['books', 'api_keys', 'webhook_endpoints', 'idempotency_keys', 'identification_types', 'tax_types', 'settings'];
  return JSON.stringify(
    Object.fromEntries(tables.map((t) => [t, agent.store.sqlite.prepare(`select * from "${t}" order by rowid`).all()])),
  );
}

/** POSTs a webhook endpoint and returns its id. */
export async function createEndpoint(
  agent: TestAgent,
  key: string,
  attributes: Record<string, unknown> = {},
): Promise<{ id: string; body: Record<string, unknown> }> {
  const res = await agent.fetch('/api/v1/webhook-endpoints', {
    method: 'POST',
    headers: jsonApiHeaders(key),
    body: JSON.stringify({
      data: { type: 'webhook_endpoint', attributes: { url: 'https://erp.example/hooks', secret: 'un-secreto-largo', ...attributes } },
    }),
  });
  const body = (await res.json()) as { data: { id: string } };
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.data.id, body: body as unknown as Record<string, unknown> };
}
