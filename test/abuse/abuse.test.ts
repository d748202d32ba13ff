/**
 * `npm run test:abuse` (issue 8, item 2): hostile input against every route of one
 * real agent. Every answer must be a 4xx (never a 5xx, never a hang) in the envelope
 * of the path's family (CONTRACT §4), and the store must be unchanged afterwards.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../../core/auth/index.js';
import { accessKey, fiscalHeaders, invoiceBody } from '../helpers/documents.js';
import { createEndpoint, jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

type Family = 'family-a' | 'fiscal' | 'jsonapi' | 'admin' | 'ui';
interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Template with `:name` segments. */
  path: string;
  family: Family;
}

/** Family A, fiscal documents, admin API and UI, as `core/http` declares them. */
const EXPLICIT_ROUTES: RouteSpec[] = [
  // Family A (X-Api-Key).
  { method: 'GET', path: '/certificates', family: 'family-a' },
  { method: 'GET', path: '/certificates/:id', family: 'family-a' },
  { method: 'GET', path: '/d/:id', family: 'family-a' },
  { method: 'GET', path: '/p/:id', family: 'family-a' },
  { method: 'GET', path: '/v/:id', family: 'family-a' },
  { method: 'GET', path: '/ack/:id', family: 'family-a' },
  { method: 'POST', path: '/digital-signatures/signing-requests', family: 'family-a' },
  { method: 'GET', path: '/digital-signatures/signing-requests/:id', family: 'family-a' },
  { method: 'POST', path: '/digital-signatures/signing-requests/:id/send', family: 'family-a' },
  { method: 'GET', path: '/digital-signatures/signing-requests/:id/documents/:documentId/original', family: 'family-a' },
  { method: 'GET', path: '/digital-signatures/signing-requests/:id/documents/:documentId/signed', family: 'family-a' },
  // Family B fiscal documents (section 6).
  { method: 'POST', path: '/api/v1/documents', family: 'fiscal' },
  { method: 'POST', path: '/api/v1/documents/:id/status', family: 'fiscal' },
  { method: 'GET', path: '/api/v1/documents/:id', family: 'fiscal' },
  { method: 'GET', path: '/api/v1/documents/:id/xml', family: 'fiscal' },
  // Admin API (CONTRACT §14).
  { method: 'GET', path: '/admin/api/certificates', family: 'admin' },
  { method: 'GET', path: '/admin/api/identification-types', family: 'admin' },
  { method: 'POST', path: '/admin/api/certificates/p12', family: 'admin' },
  { method: 'POST', path: '/admin/api/test-certificates', family: 'admin' },
  { method: 'GET', path: '/admin/api/api-keys', family: 'admin' },
  { method: 'POST', path: '/admin/api/api-keys', family: 'admin' },
  { method: 'POST', path: '/admin/api/api-keys/:id/revoke', family: 'admin' },
  { method: 'GET', path: '/admin/api/activity', family: 'admin' },
  { method: 'GET', path: '/admin/api/status', family: 'admin' },
  { method: 'GET', path: '/admin/api/books', family: 'admin' },
  { method: 'POST', path: '/admin/api/books', family: 'admin' },
  { method: 'GET', path: '/admin/api/signing/pending', family: 'admin' },
  { method: 'POST', path: '/admin/api/signing/pending/:signatureId/approve', family: 'admin' },
  { method: 'POST', path: '/admin/api/signing/pending/:signatureId/reject', family: 'admin' },
  { method: 'GET', path: '/admin/api/books/:book/webhook-endpoints', family: 'admin' },
  { method: 'POST', path: '/admin/api/books/:book/webhook-endpoints', family: 'admin' },
  { method: 'POST', path: '/admin/api/webhook-endpoints/:id/pause', family: 'admin' },
  { method: 'POST', path: '/admin/api/webhook-endpoints/:id/resume', family: 'admin' },
  { method: 'POST', path: '/admin/api/webhook-endpoints/:id/rotate-secret', family: 'admin' },
  { method: 'DELETE', path: '/admin/api/webhook-endpoints/:id', family: 'admin' },
  { method: 'GET', path: '/admin/api/folders', family: 'admin' },
  { method: 'POST', path: '/admin/api/folders', family: 'admin' },
  { method: 'DELETE', path: '/admin/api/folders/:id', family: 'admin' },
  { method: 'GET', path: '/admin/api/session', family: 'admin' },
  // UI files: served to anyone on an accepted Host; a missing file is a plain-text 404.
  { method: 'GET', path: '/ui/:file', family: 'ui' },
];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const TIMEOUT_MS = 5_000;
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** An HTTP request with the path sent exactly as written (fetch would normalise `..`). */
function send(baseUrl: string, o: { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string }): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: o.method, path: o.path, headers: o.headers, agent: keepAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`hang: ${o.method} ${o.path.slice(0, 120)}`)));
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Bytes straight onto a socket: invalid UTF-8 in the request line, CR/LF in header values. */
function sendRaw(baseUrl: string, bytes: Buffer): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`hang (raw): ${bytes.subarray(0, 80).toString('latin1')}`));
    }, TIMEOUT_MS);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One response is enough: stop at the end of the body given by Content-Length.
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(all.slice(0, split))?.[1];
      if (split >= 0 && length !== undefined && Buffer.byteLength(all.slice(split + 4)) >= Number(length)) socket.end();
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const head = all.slice(0, split);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const headers: http.IncomingHttpHeaders = {};
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: all.slice(split + 4) });
    });
  });
}

/** Problems with the envelope of an error answer for a family (CONTRACT §4); empty when right. */
function envelopeProblems(family: Family, a: Answer): string[] {
  if (family === 'ui' && String(a.headers['content-type'] ?? '').startsWith('text/plain')) return [];
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return [`not JSON (${String(a.headers['content-type'])}): ${a.body.slice(0, 120)}`];
  }
  const b = body as Record<string, unknown>;
  const fiscalShape = () => {
    const e = b.error as Record<string, unknown> | undefined;
    return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
  };
  if (/at .+:\d+:\d+/.test(a.body)) return ['stack trace in the body'];
  switch (family) {
    case 'family-a':
      return typeof b.type === 'string' && typeof b.message === 'string' && b.type !== 'api_error' ? [] : [`not {type,message}: ${a.body.slice(0, 200)}`];
    case 'fiscal':
    case 'admin':
    case 'ui':
      return fiscalShape() ? [] : [`not {error:{code,message}}: ${a.body.slice(0, 200)}`];
    case 'jsonapi': {
      if ([401, 403, 429].includes(a.status)) return fiscalShape() ? [] : [`auth error not fiscal: ${a.body.slice(0, 200)}`];
      const errors = b.errors as Array<Record<string, unknown>> | undefined;
      return Array.isArray(errors) && errors.length > 0 && errors.every((e) => e.status === String(a.status) && typeof e.code === 'string')
        ? []
        : [`not {errors:[…]}: ${a.body.slice(0, 200)}`];
    }
  }
}

/** Every row of every table except the migration bookkeeping. */
function fullSnapshot(agent: TestAgent): string {
  const tables = (agent.store.sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name <> 'sqlite_sequence' order by name").all() as Array<{ name: string }>).map((r) => r.name);
  return snapshot(agent) + JSON.stringify(Object.fromEntries(tables.map((t) => [t, agent.store.sqlite.prepare(`select * from "${t}" order by rowid`).all()])));
}

// ---------- hostile input ----------

const TRAVERSALS = [
  '../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%252e%252e%252fetc%252fpasswd',
  '..%5c..%5cwindows%5cwin.ini',
  '....//....//etc/passwd',
  '%2e%2e',
  '..',
  '%00',
  'x%00.pdf',
  'index.html%00.js',
  '%2fetc%2fpasswd',
];
const BAD_UTF8_IDS = ['%ff%fe', '%c3%28', '%e2%82', '%ed%a0%80', '%f8%88%80%80%80', 'a%c0%afb'];
const FIELDS = ['data', 'type', 'id', 'attributes', 'url', 'secret', 'name', 'slug', 'external_ref', 'country', 'doc_type', 'environment', 'path', 'password', 'documents', 'status', 'book', 'events', 'active', 'reason', 'pin'];
const ABSURD_CONTENT_TYPES = [
  'application/json; charset=utf-7',
  'multipart/form-data; boundary=',
  'a/b/c',
  ';;;',
  'application/x-www-form-urlencoded',
  `application/json; ${'x'.repeat(4000)}=1`,
  'application/vnd.api+json; ext="https://evil.example"',
  '*/*',
  'application/json\u00e9',
];
const ABSURD_ACCEPTS = ['*/*;q=abc', 'text/html', 'application/vnd.api+json; foo=bar', `${'a/b,'.repeat(1000)}x/y`, ';', 'image/png;q=0'];

type AttackKind = 'wrong-types' | 'huge-string' | 'deep-nesting' | 'invalid-utf8-body' | 'invalid-utf8-id' | 'path-traversal' | 'header-injection' | 'unknown-query' | 'content-type' | 'accept';
const KINDS: AttackKind[] = ['wrong-types', 'huge-string', 'deep-nesting', 'invalid-utf8-body', 'invalid-utf8-id', 'path-traversal', 'header-injection', 'unknown-query', 'content-type', 'accept'];

const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 3 }),
  fc.constantFrom('__proto__', 'constructor', '', '\u0000', '\ud800', 'A'.repeat(300)),
);
/** A JSON body whose known fields all have wrong types, or a top level that is no object. */
const wrongTypesBody = fc.oneof(
  fc.uniqueArray(fc.constantFrom(...FIELDS), { minLength: 1, maxLength: 5 }).chain((names) =>
    fc.tuple(...names.map(() => wrongValue)).map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]]))),
  ),
  fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 })),
  fc.constantFrom<unknown>(
    JSON.parse('{"__proto__": {"polluted": true}}'),
    { constructor: { prototype: { polluted: true } } },
    { data: { type: 'webhook_endpoint', attributes: { url: 42, secret: ['x'] } } },
  ),
);
const attack = fc.record({
  kind: fc.constantFrom(...KINDS),
  field: fc.constantFrom(...FIELDS),
  wrong: wrongTypesBody,
  traversal: fc.constantFrom(...TRAVERSALS),
  badId: fc.constantFrom(...BAD_UTF8_IDS),
  contentType: fc.constantFrom(...ABSURD_CONTENT_TYPES),
  accept: fc.constantFrom(...ABSURD_ACCEPTS),
  objects: fc.boolean(),
  query: fc.dictionary(fc.constantFrom('zzz', '__proto__[x]', 'constructor[prototype][y]', 'filter[nope]', 'page[size]', 'sort', 'include', 'fields[x]', '%ff', 'a'.repeat(200)), fc.string({ maxLength: 30 }), { minKeys: 1, maxKeys: 4 }),
  injection: fc.constantFrom('\r\nX-Injected: 1', '\nX-Injected: 1', '\rX-Injected: 1', '\u0000', ' \r\n folded', '\r\n\r\nGET /admin/api/books HTTP/1.1'),
});
type Attack = typeof attack extends fc.Arbitrary<infer T> ? T : never;

function deep(levels: number, objects: boolean): string {
  return objects ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}` : `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

// ---------- the suite ----------

interface Row {
  route: string;
  kind: string;
  count: number;
  statuses: Set<number>;
}
const table = new Map<string, Row>();
function record(route: string, kind: string, status: number): void {
  const k = `${route}\u0000${kind}`;
  const row = table.get(k) ?? { route, kind, count: 0, statuses: new Set<number>() };
  row.count += 1;
  row.statuses.add(status);
  table.set(k, row);
}

const RUNS_PER_ROUTE = Number(process.env.ABUSE_RUNS ?? 30);

describe('abuse: hostile input against every route', () => {
  let agent: TestAgent;
  let routes: RouteSpec[] = [];
  /** Real ids, so that ids of the right shape reach the handlers too. */
  const real: Record<string, string> = {};
  const failures: string[] = [];

  beforeAll(async () => {
    agent = await startTestAgent({ rateLimitPerMinute: 1_000_000 });
    real.endpoint = (await createEndpoint(agent, agent.liveKey)).id;
    const created = await agent.fetch('/api/v1/documents', {
      method: 'POST',
      headers: fiscalHeaders(agent.liveKey),
      body: JSON.stringify(invoiceBody({ external_ref: 'abuse-1', access_key: accessKey('live', 1) })),
    });
    expect(created.status).toBe(201);
    real.document = ((await created.json()) as { data: { id: string } }).data.id;
    real.book = agent.book.id;
    const doc = (await (await agent.fetch('/api/v1/openapi')).json()) as { paths: Record<string, Record<string, unknown>> };
    const familyB: RouteSpec[] = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'patch', 'delete'].includes(m))
        .map((m) => ({ method: m.toUpperCase() as RouteSpec['method'], path: p.replace(/\{([^}]+)\}/g, ':$1'), family: 'jsonapi' as const })),
    );
    routes = [...familyB.filter((r) => r.path !== '/api/v1/openapi'), ...EXPLICIT_ROUTES];
  });
  afterAll(async () => {
    keepAlive.destroy();
    await agent?.close();
  });

  const credentials = (family: Family): Record<string, string> =>
    family === 'family-a'
      ? { 'X-Api-Key': agent.liveApiKey }
      : family === 'admin'
        ? { Authorization: `Bearer ${agent.adminToken}` }
        : family === 'ui'
          ? {}
          : { Authorization: `Bearer ${agent.liveKey}` };
  const baseHeaders = (family: Family): Record<string, string> => ({
    ...credentials(family),
    'Content-Type': family === 'jsonapi' ? 'application/vnd.api+json' : 'application/json',
    Accept: family === 'jsonapi' ? 'application/vnd.api+json' : 'application/json',
  });

  /** The path with every parameter replaced by `id` (already encoded as it goes on the wire). */
  const fill = (template: string, id: (name: string) => string) => template.replace(/:(\w+)/g, (_, name: string) => id(name));
  const realId = (name: string) => (name === 'book' ? real.book! : /document/i.test(name) ? real.document! : real.endpoint!);

  async function fire(route: RouteSpec, a: Attack): Promise<{ answer: Answer; kind: AttackKind }> {
    const hasParams = route.path.includes(':');
    const headers = baseHeaders(route.family);
    const bodyOf = (value: unknown) => (route.method === 'GET' || route.method === 'DELETE' ? undefined : JSON.stringify(value));
    // A POST on a record (pause, resend, approve…) may take no body and ignore one: aimed at a
    // real record it would legitimately act. Such attacks go to an id that doesn't exist; PATCH
    // keeps the real id, since its body is validated before anything changes.
    let path = fill(route.path, hasParams && route.method === 'POST' ? () => 'no-such-id' : realId);
    let body: Buffer | string | undefined = bodyOf(a.wrong);
    // Ids of other shapes must not reach a real record: a write with a real id and a
    // wrong body is still refused (the body), a read with a hostile id finds nothing.
    switch (a.kind) {
      case 'wrong-types':
        if (hasParams && (route.method === 'GET' || route.method === 'DELETE')) path = fill(route.path, () => 'no-such-id');
        break;
      case 'huge-string':
        if (route.method === 'GET' || route.method === 'DELETE') path = `${path}?q=${'a'.repeat(1_000_000)}`;
        else body = JSON.stringify({ [a.field]: 'x'.repeat(1_000_000), data: { type: 'x'.repeat(1_000_000) } });
        break;
      case 'deep-nesting': {
        const nested = deep(1000, a.objects);
        if (route.method === 'GET' || route.method === 'DELETE') path = `${fill(route.path, () => encodeURIComponent(deep(200, a.objects)))}?filter=${encodeURIComponent(deep(200, a.objects))}`;
        else body = `{"${a.field}":${nested},"data":${nested}}`;
        break;
      }
      case 'invalid-utf8-body': {
        body = Buffer.concat([Buffer.from(`{"${a.field}":"`), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"}')]);
        if (route.method === 'GET' || route.method === 'DELETE') path = `${fill(route.path, () => a.badId)}`;
        if (!hasParams && (route.method === 'GET' || route.method === 'DELETE')) path = `${path}?filter[url]=${a.badId}`;
        break;
      }
      case 'invalid-utf8-id': {
        // Raw bytes in the request line, then a percent-encoded invalid sequence.
        const rawPath = hasParams ? fill(route.path, () => '\xff\xfe\xc0\xaf') : `${route.path}?x=\xff\xfe`;
        const head = [`${route.method} ${rawPath} HTTP/1.1`, `Host: 127.0.0.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Content-Length: 2', 'Connection: close', '', '{}'].join('\r\n');
        const rawAnswer = await sendRaw(agent.baseUrl, Buffer.from(head, 'latin1'));
        check(route, 'invalid-utf8-id', rawAnswer, true);
        path = hasParams ? fill(route.path, () => a.badId) : `${route.path}?filter[url]=${a.badId}`;
        break;
      }
      case 'path-traversal':
        path = hasParams ? fill(route.path, () => a.traversal) : `${route.path}/${a.traversal}`;
        body = bodyOf({ [a.field]: a.traversal, path: a.traversal, name: a.traversal, file: a.traversal });
        break;
      case 'header-injection': {
        if (hasParams) path = fill(route.path, () => 'no-such-id');
        const lines = [`${route.method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${k === 'Accept' ? v + a.injection : v}`), `X-Request-Id: abc${a.injection}`, 'Content-Length: 2', 'Connection: close', '', '{}'];
        const answer = await sendRaw(agent.baseUrl, Buffer.from(lines.join('\r\n'), 'latin1'));
        if (answer.headers['x-injected'] !== undefined) failures.push(`${route.method} ${route.path} header-injection: the injected header came back`);
        return { answer, kind: a.kind };
      }
      case 'unknown-query':
        path = `${path}?${Object.entries(a.query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
        if (hasParams) path = path.replace(realId(route.path.match(/:(\w+)/)![1]!), 'no-such-id');
        break;
      case 'content-type':
        headers['Content-Type'] = a.contentType;
        if (hasParams) path = fill(route.path, () => 'no-such-id');
        break;
      case 'accept':
        headers.Accept = a.accept;
        if (hasParams) path = fill(route.path, () => 'no-such-id');
        break;
    }
    return { answer: await send(agent.baseUrl, { method: route.method, path, headers, body }), kind: a.kind };
  }

  /**
   * A 4xx in the family's envelope. A read without ids may ignore what it doesn't
   * understand (unknown query, Accept) and answer 2xx: recorded, never a failure.
   */
  function check(route: RouteSpec, kind: AttackKind, answer: Answer, rawParser = false): void {
    const name = `${route.method} ${route.path}`;
    record(name, kind, answer.status);
    const harmlessRead = route.method === 'GET' && (!route.path.includes(':') || route.family === 'ui') && answer.status >= 200 && answer.status < 300;
    if (answer.status >= 400 && answer.status < 500) {
      // The HTTP parser answers before routing: its envelope follows the path prefix.
      void rawParser;
      const problems = envelopeProblems(route.family, answer);
      if (problems.length > 0) failures.push(`${name} ${kind} ${answer.status}: ${problems.join('; ')}`);
    } else if (!harmlessRead) {
      failures.push(`${name} ${kind}: status ${answer.status} ${answer.body.slice(0, 200)}`);
    }
  }

  it('answers every hostile request with a 4xx in the family’s envelope and changes nothing', async () => {
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const before = fullSnapshot(agent);
      await fc.assert(
        fc.asyncProperty(attack, async (a) => {
          const { answer, kind } = await fire(route, a);
          check(route, kind, answer);
        }),
        // Every kind at least twice per route, then random ones.
        { numRuns: RUNS_PER_ROUTE, seed: Number(process.env.ABUSE_SEED ?? 8), examples: KINDS.map((kind) => [{ ...fc.sample(attack, { numRuns: 1, seed: 8 })[0]!, kind }]) },
      );
      const after = fullSnapshot(agent);
      if (after !== before) failures.push(`${route.method} ${route.path}: the store changed`);
    }
    expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').toBeUndefined();
    expect(failures).toEqual([]);
  }, 90_000);

  it('refuses DNS rebinding with 421 on every family', async () => {
    const probes: Array<[Family, string, string]> = [
      ['family-a', 'GET', '/certificates'],
      ['fiscal', 'POST', '/api/v1/documents'],
      ['jsonapi', 'POST', '/api/v1/webhook-endpoints'],
      ['admin', 'POST', '/admin/api/books'],
      ['ui', 'GET', '/ui/'],
    ];
    const before = fullSnapshot(agent);
    const port = Number(new URL(agent.baseUrl).port);
    const hosts = [
      'evil.example',
      '127.0.0.1.evil.example',
      'localhost.evil.example:80',
      '127.0.0.1@evil.example',
      // Issue 15: each of these once passed as one of our names, and went into links.
      'localhost:80@evil.com',
      `127.0.0.1:${port}/evil`,
      '127.0.0.1.evil.com',
      '[::1]@x',
      `localhost:${port}@evil.com`,
      // Not the port the request came in on, an empty or odd port, a name with a trailing dot.
      `127.0.0.1:${port + 1}`,
      'localhost:',
      'localhost:+80',
      'localhost.',
      '[::1',
      '[::1]:x',
    ];
    for (const host of hosts) {
      for (const [family, method, path] of probes) {
        const headers = { ...baseHeaders(family), Host: host };
        const answer = await send(agent.baseUrl, { method, path, headers, body: method === 'POST' ? JSON.stringify(invoiceBody({ external_ref: 'rebind' })) : undefined });
        record(`${method} ${path}`, `host ${host}`, answer.status);
        expect(answer.status, `${host} ${path}`).toBe(421);
        const problems = envelopeProblems(family === 'ui' ? 'admin' : family, answer);
        expect(problems, `${host} ${path}`).toEqual([]);
        if (family !== 'family-a') expect(answer.body).toContain('misdirected_request');
      }
    }
    expect(fullSnapshot(agent)).toBe(before);
  });

  it('accepts the configured names in any case, with or without the port, and builds links from the checked Host', async () => {
    const port = new URL(agent.baseUrl).port;
    for (const host of ['LOCALHOST', `LocalHost:${port}`, `127.0.0.1:${port}`, '[::1]']) {
      // Twice: the second answer may come from the read cache, keyed by the same checked origin.
      for (let i = 0; i < 2; i++) {
        const answer = await send(agent.baseUrl, { method: 'GET', path: '/api/v1/webhook-endpoints', headers: { ...baseHeaders('jsonapi'), Host: host } });
        record('GET /api/v1/webhook-endpoints', `host ${host}`, answer.status);
        expect(answer.status, host).toBe(200);
        const { links } = JSON.parse(answer.body) as { links: { self: string } };
        expect(links.self.startsWith(`http://${host.toLowerCase()}/api/v1/webhook-endpoints?`), `${host}: ${links.self}`).toBe(true);
      }
    }
  });

  it('refuses a cross-site form POST to the admin API carrying a real session cookie', async () => {
    const login = await fetch(agent.adminUrl, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const session = await agent.fetch('/admin/api/session', { headers: { Cookie: cookie } });
    expect(session.status).toBe(200);
    const csrf = ((await session.json()) as { data: { csrf_token: string } }).data.csrf_token;
    const before = fullSnapshot(agent);
    const form = 'name=evil&environment=live&slug=evil&tenant=evil';
    const attempts: Array<{ label: string; path: string; method: string; headers: Record<string, string> }> = [];
    for (const path of ['/admin/api/books', '/admin/api/api-keys', `/admin/api/webhook-endpoints/${real.endpoint}/pause`, `/admin/api/books/${real.book}/webhook-endpoints`, '/admin/api/test-certificates']) {
      const common = { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' };
      attempts.push(
        { label: 'origin', path, method: 'POST', headers: { ...common, Origin: 'https://evil.example' } },
        { label: 'sec-fetch-site', path, method: 'POST', headers: { ...common, 'Sec-Fetch-Site': 'cross-site' } },
        { label: 'origin+csrf', path, method: 'POST', headers: { ...common, Origin: 'https://evil.example', 'X-CSRF-Token': csrf } },
        { label: 'null origin', path, method: 'POST', headers: { ...common, Origin: 'null' } },
        { label: 'no csrf', path, method: 'POST', headers: common },
      );
    }
    attempts.push({ label: 'logout cross-site', path: '/admin/api/session', method: 'DELETE', headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    for (const t of attempts) {
      const answer = await send(agent.baseUrl, { method: t.method, path: t.path, headers: t.headers, body: t.method === 'POST' ? form : undefined });
      record(`${t.method} ${t.path.replace(/[0-9a-f-]{36}/g, ':id')}`, `cross-site ${t.label}`, answer.status);
      expect([401, 403], `${t.label} ${t.path}`).toContain(answer.status);
      expect(envelopeProblems('admin', answer), `${t.label} ${t.path}`).toEqual([]);
    }
    expect(fullSnapshot(agent)).toBe(before);
    // The session survived the cross-site logout attempt and still reads.
    expect((await agent.fetch('/admin/api/session', { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it('answers a key of another book with 404 on this book’s resources, changing nothing', async () => {
    const other = agent.addBook('otro-libro');
    const before = fullSnapshot(agent);
    const tries: Array<[string, string, string | undefined, Family]> = [
      ['GET', `/api/v1/webhook-endpoints/${real.endpoint}`, undefined, 'jsonapi'],
      ['PATCH', `/api/v1/webhook-endpoints/${real.endpoint}`, JSON.stringify({ data: { type: 'webhook_endpoint', id: real.endpoint, attributes: { active: false } } }), 'jsonapi'],
      ['DELETE', `/api/v1/webhook-endpoints/${real.endpoint}`, undefined, 'jsonapi'],
      ['GET', `/api/v1/documents/${real.document}`, undefined, 'fiscal'],
      ['GET', `/api/v1/documents/${real.document}/xml`, undefined, 'fiscal'],
      ['POST', `/api/v1/documents/${real.document}/status`, JSON.stringify({ status: 'rejected', errors: [{ code: 'X', message: 'x' }] }), 'fiscal'],
    ];
    for (const [method, path, body, family] of tries) {
      const headers = family === 'jsonapi' ? jsonApiHeaders(other.key) : fiscalHeaders(other.key);
      const answer = await send(agent.baseUrl, { method, path, headers, body });
      record(`${method} ${path.replace(real.endpoint!, ':id').replace(real.document!, ':id')}`, 'other book key', answer.status);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(envelopeProblems(family, answer)).toEqual([]);
    }
    // Its own list shows nothing of this book.
    const list = (await (await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(other.key) })).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
    expect(fullSnapshot(agent)).toBe(before);
  });

  it('answers a revoked key with 401 on every keyed route, changing nothing', async () => {
    const b = createKey(agent.store, { family: 'b', environment: 'live', bookId: agent.book.id });
    const a = createKey(agent.store, { family: 'a', environment: 'live' });
    revokeKey(agent.store, b.record.id);
    revokeKey(agent.store, a.record.id);
    const before = fullSnapshot(agent);
    for (const route of routes.filter((r) => r.family !== 'admin' && r.family !== 'ui')) {
      const headers = { ...baseHeaders(route.family), ...(route.family === 'family-a' ? { 'X-Api-Key': a.key } : { Authorization: `Bearer ${b.key}` }) };
      const path = fill(route.path, realId);
      const body = route.method === 'POST' || route.method === 'PATCH' ? JSON.stringify(invoiceBody({ external_ref: 'revoked' })) : undefined;
      const answer = await send(agent.baseUrl, { method: route.method, path, headers, body });
      record(`${route.method} ${route.path}`, 'revoked key', answer.status);
      expect(answer.status, `${route.method} ${route.path}`).toBe(401);
      // Family B authentication errors are fiscal on every Family B path.
      expect(envelopeProblems(route.family === 'family-a' ? 'family-a' : 'fiscal', answer), `${route.method} ${route.path}`).toEqual([]);
    }
    expect(fullSnapshot(agent)).toBe(before);
  });
});

describe('abuse: 10,000 requests in a minute with one key', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent?.close());

  it('lets exactly 300 through, answers the rest 429 with Retry-After, and still serves afterwards', async () => {
    const total = Number(process.env.ABUSE_FLOOD ?? 10_000);
    const before = fullSnapshot(agent);
    const started = Date.now();
    const statuses = new Map<number, number>();
    const bad: string[] = [];
    const flood = new http.Agent({ keepAlive: true, maxSockets: 64 });
    let next = 0;
    const url = new URL(agent.baseUrl);
    const one = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path: '/api/v1/tax-types', headers: { Authorization: `Bearer ${agent.liveKey}`, Accept: 'application/vnd.api+json' }, agent: flood }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (status === 429) {
              const retry = res.headers['retry-after'];
              const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code?: string; message?: string } };
              if (!/^\d+$/.test(String(retry)) || Number(retry) < 1 || Number(retry) > 60) bad.push(`Retry-After ${String(retry)}`);
              if (body.error?.code !== 'rate_limited' || typeof body.error.message !== 'string') bad.push(`429 body ${JSON.stringify(body)}`);
              if (!/^default;r=0;t=\d+$/.test(String(res.headers.ratelimit))) bad.push(`RateLimit ${String(res.headers.ratelimit)}`);
            } else if (status !== 200) {
              bad.push(`status ${status}`);
            }
            resolve();
          });
        });
        req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error('hang under load')));
        req.on('error', reject);
        req.end();
      });
    const worker = async () => {
      while (next < total) {
        next += 1;
        await one();
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    flood.destroy();
    const elapsed = Date.now() - started;
    for (const status of statuses.keys()) record('GET /api/v1/tax-types', `flood ${total} in ${elapsed} ms`, status);
    const row = table.get(`GET /api/v1/tax-types\u0000flood ${total} in ${elapsed} ms`);
    if (row) row.count = total;
    expect(elapsed).toBeLessThan(60_000);
    expect(bad.slice(0, 5)).toEqual([]);
    expect(statuses.get(200)).toBe(300);
    expect(statuses.get(429)).toBe(total - 300);
    // Still answering: a public read and an admin health read.
    expect((await agent.fetch('/api/v1/openapi')).status).toBe(200);
    expect((await agent.fetch('/admin/api/status', { headers: { Authorization: `Bearer ${agent.adminToken}` } })).status).toBe(200);
    expect(fullSnapshot(agent)).toBe(before);
  }, 60_000);
});

afterAll(() => {
  const rows = [...table.values()].sort((a, b) => a.route.localeCompare(b.route) || a.kind.localeCompare(b.kind));
  const lines = rows.map((r) => `| ${r.route} | ${r.kind} | ${r.count} | ${[...r.statuses].sort().join(', ')} |`);
  console.log(['| route | attack | count | statuses |', '|---|---|---|---|', ...lines].join('\n'));
});
