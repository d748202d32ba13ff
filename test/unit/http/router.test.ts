/**
 * Issue 17 point 6: `@koa/router` answers the route table. Its outcomes must be those of the
 * hand-written matcher it replaced, kept below as the reference, for any method and path: the
 * route that answers (the first of the table with the path and method; HEAD by GET), the
 * decoded parameters, 404 for a malformed percent-encoding, 405 with the methods in table
 * order. A real Koa app on a free port, so that `ctx.path` is what Koa makes of the raw URL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Method, Route, State } from '../../../core/http/context.js';
import { createRouter } from '../../../core/http/router.js';

const route = (method: Method, path: string): Route => ({ method, path, surface: 'family-a', auth: 'none', handler: () => undefined });

/** The shapes of the real table (core/app.ts), plus overlaps it may grow: a literal after a parameter, a duplicate. */
const routes: Route[] = [
  route('GET', '/api/v1/webhook-endpoints'),
  route('GET', '/api/v1/webhook-endpoints/:id'),
  route('POST', '/api/v1/webhook-endpoints'),
  route('PATCH', '/api/v1/webhook-endpoints/:id'),
  route('DELETE', '/api/v1/webhook-endpoints/:id'),
  route('GET', '/api/v1/tax-types'),
  route('GET', '/api/v1/tax-types/:id'),
  route('GET', '/api/v1/openapi'),
  route('POST', '/api/v1/documents'),
  route('GET', '/api/v1/documents/:id'),
  route('GET', '/api/v1/documents/:id/status'),
  route('GET', '/api/v1/documents/:id/xml'),
  route('GET', '/d/:id'),
  route('GET', '/v/:id'),
  route('POST', '/ack/:id'),
  route('POST', '/digital-signatures/signing-requests'),
  route('GET', '/digital-signatures/signing-requests/:id'),
  route('POST', '/digital-signatures/signing-requests/:id/send'),
  route('GET', '/digital-signatures/signing-requests/:id/documents/:documentId/signed'),
  route('GET', '/admin/api/books'),
  route('POST', '/admin/api/books'),
  route('GET', '/admin/api/books/:book/webhook-endpoints'),
  route('POST', '/admin/api/books/:book/webhook-endpoints'),
  route('POST', '/admin/api/certificates/p12'),
  route('DELETE', '/admin/api/certificates/:id'),
  route('GET', '/ui'),
  route('GET', '/ui/login'),
  route('GET', '/ui/:file'),
  route('GET', '/x/:id'),
  route('GET', '/x/special'),
  route('PUT', '/x/special'),
  route('GET', '/dup'),
  route('GET', '/dup'),
  route('GET', '/'),
];

type Outcome =
  | { kind: 'found'; index: number; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: Method[] }
  | { kind: 'none' };

/** The matcher `@koa/router` replaced (core/http/router.ts before issue 17), as it was. */
function reference(table: readonly Route[]): (method: string, path: string) => Outcome {
  const compiled = table.map((r, index) => {
    const names: string[] = [];
    const source = r.path
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) {
          names.push(segment.slice(1));
          return '([^/]+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    return { route: r, index, pattern: new RegExp(`^${source}/?$`), names };
  });
  return (method, path) => {
    const allowed: Method[] = [];
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { route: r, index, pattern, names } of compiled) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (r.method !== wanted) {
        allowed.push(r.method);
        continue;
      }
      const params: Record<string, string> = {};
      let malformed = false;
      names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        } catch {
          malformed = true;
        }
      });
      if (malformed) return { kind: 'none' };
      return { kind: 'found', index, params };
    }
    return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
  };
}

let server: http.Server;
let port: number;
const agent = new http.Agent({ keepAlive: true });

beforeAll(async () => {
  const app = new Koa<State>();
  // The outcome in a header, so that HEAD tells it too; the path and method as Koa saw them.
  const tell = (ctx: Koa.ParameterizedContext<State>, outcome: Outcome) =>
    ctx.set('X-Outcome', encodeURIComponent(JSON.stringify({ outcome, path: ctx.path, method: ctx.method })));
  app.use(
    createRouter(routes, {
      found: (ctx, r) => {
        tell(ctx, { kind: 'found', index: routes.indexOf(r), params: ctx.state.params });
        ctx.status = 204;
      },
      notFound: (ctx) => {
        tell(ctx, { kind: 'none' });
        ctx.status = 404;
      },
      wrongMethod: (ctx, allowed) => {
        tell(ctx, { kind: 'wrong-method', allowed });
        ctx.status = 405;
      },
    }),
  );
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
});

function ask(method: string, path: string): Promise<{ status: number; outcome: Outcome; path: string; method: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        const told = JSON.parse(decodeURIComponent(String(res.headers['x-outcome']))) as { outcome: Outcome; path: string; method: string };
        resolve({ status: res.statusCode ?? 0, ...told });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'PURGE'];
const literals = [...new Set(routes.flatMap((r) => r.path.split('/')).filter((s) => s !== '' && !s.startsWith(':')))];
const value = fc.oneof(
  fc.constantFrom('abc', 'a%2Fb', 'a+b', '%20', '%C3%A9', '%E0%A4%A', '%E0', '%', '%zz', '%25', '%2e%2E', '.', '..', 'ui%2Flogin', 'x;y', 'a%00b', '~', 'special', 'login', 'p12'),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{1,6}$/),
);
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...literals) },
  { weight: 2, arbitrary: fc.constantFrom(...literals.map((s) => s.toUpperCase()), 'Api', 'UI') },
  { weight: 4, arbitrary: value },
  { weight: 1, arbitrary: fc.constant('') },
);
const tail = fc.constantFrom('', '', '', '/', '//');
const request: fc.Arbitrary<[string, string]> = fc.oneof(
  // A route's path with values in its parameters, mostly with its method: found, or found by another method.
  fc
    .tuple(fc.constantFrom(...routes), fc.option(fc.constantFrom(...METHODS), { freq: 2 }), value, value, tail)
    .map(([r, method, a, b, end]): [string, string] => [method ?? r.method, `${r.path.replace(/:[A-Za-z]+/, a).replace(/:[A-Za-z]+/, b)}${end}`]),
  // Anything made of the table's words and such values: mostly not found, or a wrong method.
  fc.tuple(fc.constantFrom(...METHODS), fc.array(segment, { maxLength: 7 }), tail).map(([method, segments, end]): [string, string] => [method, `/${segments.join('/')}${end}`]),
);

describe('the route table on @koa/router', () => {
  it('answers like the hand-written matcher it replaced, for any method and path', async () => {
    const matcher = reference(routes);
    await fc.assert(
      fc.asyncProperty(request, async ([method, path]) => {
        const res = await ask(method, path);
        expect(res.method).toBe(method);
        expect(res.outcome).toEqual(matcher(res.method, res.path));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers the cases that differ between routers the same way', async () => {
    const matcher = reference(routes);
    const cases: Array<[string, string]> = [
      ['GET', '/api/v1/tax-types/'],
      ['GET', '/api/v1/tax-types//'],
      ['GET', '/API/v1/tax-types'],
      ['GET', '/api/v1/tax-types/a%2Fb'],
      ['GET', '/api/v1/tax-types/a+b'],
      ['GET', '/api/v1/tax-types/%E0%A4%A'],
      ['DELETE', '/api/v1/tax-types/%E0%A4%A'],
      ['GET', '/api/v1/tax%2Dtypes'],
      ['HEAD', '/api/v1/tax-types'],
      ['HEAD', '/ack/1'],
      ['OPTIONS', '/api/v1/webhook-endpoints/1'],
      ['PROPFIND', '/api/v1/webhook-endpoints'],
      ['OPTIONS', '*'],
      ['GET', '/ui/login'],
      ['GET', '/ui/ui%2Flogin'],
      ['DELETE', '/admin/api/certificates/p12'],
      ['GET', '/x/special'],
      ['DELETE', '/x/special'],
      ['GET', '/dup/'],
      ['GET', '/'],
      ['GET', '//'],
      ['GET', '/digital-signatures/signing-requests/r%2F1/documents/%C3%A9/signed/'],
    ];
    for (const [method, path] of cases) {
      const res = await ask(method, path);
      expect(res.outcome, `${method} ${path}`).toEqual(matcher(method, res.path));
    }
    // Spelled out, so that the reference itself is checked too.
    expect((await ask('DELETE', '/api/v1/tax-types/%E0%A4%A')).outcome).toEqual({ kind: 'wrong-method', allowed: ['GET'] });
    expect((await ask('GET', '/api/v1/tax-types/%E0%A4%A')).outcome).toEqual({ kind: 'none' });
    expect((await ask('GET', '/api/v1/tax-types/a%2Fb/')).outcome).toEqual({ kind: 'found', index: 6, params: { id: 'a/b' } });
    expect((await ask('GET', '/api/v1/tax-types/a+b')).outcome).toEqual({ kind: 'found', index: 6, params: { id: 'a+b' } });
    expect((await ask('OPTIONS', '/api/v1/webhook-endpoints/1')).outcome).toEqual({ kind: 'wrong-method', allowed: ['GET', 'PATCH', 'DELETE'] });
    expect((await ask('HEAD', '/ack/1')).outcome).toEqual({ kind: 'wrong-method', allowed: ['POST'] });
    expect((await ask('GET', '/x/special')).outcome).toEqual({ kind: 'found', index: 28, params: { id: 'special' } });
    expect((await ask('DELETE', '/x/special')).outcome).toEqual({ kind: 'wrong-method', allowed: ['GET', 'GET', 'PUT'] });
    expect((await ask('GET', '/dup')).outcome).toEqual({ kind: 'found', index: 31, params: {} });
    expect((await ask('GET', '/API/v1/tax-types')).outcome).toEqual({ kind: 'none' });
    expect((await ask('GET', '/api/v1/tax-types//')).outcome).toEqual({ kind: 'none' });
  });

  it('refuses, when the table is built, a path that path-to-regexp would read differently', () => {
    const outcomes = { found: () => undefined, notFound: () => undefined, wrongMethod: () => undefined };
    for (const path of ['/a/:id.json', '/a/*rest', '/a{/:b}', '/a/(b)', '/a/:b?', 'a/b', '/a/:1']) {
      expect(() => createRouter([route('GET', path)], outcomes), path).toThrow(/each a literal or :name/);
    }
    expect(() => createRouter(routes, outcomes)).not.toThrow();
  });
});
