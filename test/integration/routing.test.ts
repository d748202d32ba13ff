/**
 * The route table as a client meets it (issue 17 point 6: `@koa/router` answers it): which
 * answer, in which envelope, comes before which check. Raw requests, so that the path goes out
 * exactly as written (no normalisation, no re-encoding). test/unit/http/router.test.ts compares
 * the matching itself with the matcher it replaced.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.close());

function ask(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(agent.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as unknown });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const familyB = () => ({ Authorization: `Bearer ${agent.liveKey}` });
const familyA = () => ({ 'X-Api-Key': agent.liveApiKey });
const admin = () => ({ Authorization: `Bearer ${agent.adminToken}` });

describe('unknown routes', () => {
  it('answer 404 in the envelope of the path’s surface', async () => {
    const jsonapi = await ask('GET', '/api/v1/nothing-here', familyB());
    expect(jsonapi.status).toBe(404);
    expect(jsonapi.headers['content-type']).toBe('application/vnd.api+json');
    expect(jsonapi.json()).toMatchObject({ errors: [{ status: '404', code: 'route_not_found', detail: 'No existe la ruta GET /api/v1/nothing-here.' }] });

    const fiscal = await ask('GET', '/api/v1/documents/x/nothing', familyB());
    expect(fiscal.status).toBe(404);
    expect(fiscal.json()).toEqual({ error: { code: 'route_not_found', message: 'No existe la ruta GET /api/v1/documents/x/nothing.' } });

    const download = await ask('GET', '/d/x/y', familyA());
    expect(download.status).toBe(404);
    expect(download.json()).toEqual({ type: 'invalid_request_error', message: 'No existe la ruta GET /d/x/y.' });

    const adminApi = await ask('GET', '/admin/api/nothing', admin());
    expect(adminApi.status).toBe(404);
    expect(adminApi.json()).toEqual({ error: { code: 'route_not_found', message: 'No existe la ruta GET /admin/api/nothing.' } });

    // The UI's paths ask for nothing: 404 straight away, in the admin envelope.
    const ui = await ask('GET', '/ui/nothing/deeper');
    expect(ui.status).toBe(404);
    expect(ui.json()).toMatchObject({ error: { code: 'route_not_found' } });
  });

  it('answer 401 first to a caller without the surface’s credential, so that routes cannot be probed', async () => {
    for (const path of ['/api/v1/nothing-here', '/api/v1/documents/x/nothing']) {
      const res = await ask('GET', path);
      expect(res.status, path).toBe(401);
      expect(res.json(), path).toMatchObject({ error: { code: 'unauthorized' } });
    }
    const download = await ask('GET', '/d/x/y');
    expect(download.status).toBe(401);
    expect(download.json()).toMatchObject({ type: 'authentication_error' });
    const adminApi = await ask('GET', '/admin/api/nothing');
    expect(adminApi.status).toBe(401);
    expect(adminApi.json()).toMatchObject({ error: { code: 'unauthorized' } });
    // A key of the other family is no key here.
    expect((await ask('GET', '/api/v1/nothing-here', familyA())).status).toBe(401);
    expect((await ask('GET', '/nothing-here', familyB())).status).toBe(401);
  });
});

describe('a method no route of the path has', () => {
  it('answers 405 with Allow listing the path’s methods in table order, before any key check', async () => {
    const before = snapshot(agent);
    const cases: Array<[string, string, string, unknown]> = [
      ['PUT', '/api/v1/webhook-endpoints', 'GET, POST', { errors: [{ status: '405', code: 'method_not_allowed' }] }],
      ['PUT', '/api/v1/webhook-endpoints/whe_x', 'GET, PATCH, DELETE', { errors: [{ code: 'method_not_allowed' }] }],
      ['DELETE', '/api/v1/documents', 'POST', { error: { code: 'method_not_allowed' } }],
      ['DELETE', '/certificates', 'GET', { type: 'invalid_request_error', message: 'Método DELETE no permitido en /certificates. Permitidos: GET.' }],
      ['PUT', '/admin/api/books', 'GET, POST', { error: { code: 'method_not_allowed' } }],
    ];
    for (const [method, path, allow, envelope] of cases) {
      const res = await ask(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow, `${method} ${path}`).toBe(allow);
      expect(res.json(), `${method} ${path}`).toMatchObject(envelope as object);
    }
    // No CSRF check either: the admin route that would check it is not reached.
    const crossSite = await ask('PUT', '/admin/api/books', { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(405);
    expect(snapshot(agent)).toBe(before);
  });

  it('is 405 for OPTIONS and for methods Sello never uses, not 200 nor 501', async () => {
    for (const method of ['OPTIONS', 'PROPFIND', 'PURGE']) {
      const res = await ask(method, '/api/v1/tax-types');
      expect(res.status, method).toBe(405);
      expect(res.headers.allow, method).toBe('GET');
    }
    expect((await ask('OPTIONS', '/api/v1/nothing-here', familyB())).status).toBe(404);
  });
});

describe('HEAD', () => {
  it('is answered by the GET route, with its headers and no body', async () => {
    const get = await ask('GET', '/api/v1/tax-types/pe-igv', { ...familyB(), Accept: 'application/vnd.api+json' });
    const head = await ask('HEAD', '/api/v1/tax-types/pe-igv', { ...familyB(), Accept: 'application/vnd.api+json' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect((await ask('HEAD', '/certificates', familyA())).status).toBe(200);
  });

  it('on a path without GET is 405 listing the path’s methods (no HEAD among them)', async () => {
    const res = await ask('HEAD', '/digital-signatures/signing-requests');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.text).toBe('');
  });
});

describe('paths', () => {
  const read = (path: string) => ask('GET', path, { ...familyB(), Accept: 'application/vnd.api+json' });

  it('take one trailing slash as the same path, two as another', async () => {
    expect((await read('/api/v1/tax-types/')).status).toBe(200);
    expect((await read('/api/v1/tax-types/pe-igv/')).json()).toMatchObject({ data: { id: 'pe-igv' } });
    const two = await read('/api/v1/tax-types//');
    expect(two.status).toBe(404);
    expect(two.json()).toMatchObject({ errors: [{ code: 'route_not_found' }] });
    expect((await read('/api/v1//tax-types')).status).toBe(404);
  });

  it('are case-sensitive, and their literal segments are not percent-decoded', async () => {
    for (const path of ['/api/v1/Tax-Types', '/api/v1/TAX-TYPES/pe-igv', '/api/v1/tax%2Dtypes', '/api/v1/tax-types%2Fpe-igv']) {
      const res = await read(path);
      expect(res.status, path).toBe(404);
      expect(res.json(), path).toMatchObject({ errors: [{ code: 'route_not_found' }] });
    }
  });

  it('give the handler percent-decoded parameters: %2F is a slash in the value, + stays +', async () => {
    expect((await read('/api/v1/tax-types/pe%2Digv')).json()).toMatchObject({ data: { id: 'pe-igv' } });
    const cases: Array<[string, string]> = [
      ['a%2Fb', 'a/b'],
      ['a+b', 'a+b'],
      ['a%20b', 'a b'],
      ['%C3%B1and%C3%BA', 'ñandú'],
      ['100%25', '100%'],
    ];
    for (const [raw, decoded] of cases) {
      const res = await read(`/api/v1/tax-types/${raw}`);
      expect(res.status, raw).toBe(404);
      // The handler's 404 (the route was found), naming the decoded id.
      expect(res.json(), raw).toMatchObject({ errors: [{ code: 'resource_not_found', detail: `No existe tax_type con id ${decoded}.` }] });
    }
  });

  it('with a malformed percent-encoding in a parameter are an unknown route (after the key check), a wrong method still 405', async () => {
    for (const raw of ['%E0%A4%A', '%zz', 'abc%', '%C3']) {
      const res = await read(`/api/v1/tax-types/${raw}`);
      expect(res.status, raw).toBe(404);
      expect(res.json(), raw).toMatchObject({ errors: [{ code: 'route_not_found' }] });
      expect((await ask('GET', `/api/v1/tax-types/${raw}`)).status, raw).toBe(401);
      expect((await ask('DELETE', `/api/v1/tax-types/${raw}`)).status, raw).toBe(405);
    }
    const download = await ask('GET', '/d/%E0', familyA());
    expect(download.status).toBe(404);
    expect(download.json()).toMatchObject({ type: 'invalid_request_error' });
  });
});
