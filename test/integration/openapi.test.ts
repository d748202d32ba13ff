/**
 * `GET /api/v1/openapi` (CONTRACT §7): an OpenAPI 3.1 document that standard
 * validators accept and that every response of the API conforms to.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, JSONAPI, jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';
import { createOpenApiValidator, type OpenApiDocument, type OpenApiValidator } from '../helpers/openapi-validator.js';

const ENDPOINTS = '/api/v1/webhook-endpoints';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface Context {
  headers: Record<string, string>;
  id: string;
  item: string;
  noCapabilityKey: string;
  signingOnlyKey: string;
}

interface Case {
  name: string;
  method: string;
  status: number;
  request(context: Context): [path: string, init: RequestInit];
}

function body(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ data: { type: 'webhook_endpoint', attributes, ...extra } });
}

describe('the OpenAPI document', () => {
  let agent: TestAgent;
  let doc: OpenApiDocument;
  let conformance: OpenApiValidator;
  let endpointId: string;
  let noCapabilityKey: string;
  let signingOnlyKey: string;

  beforeAll(async () => {
    agent = await startTestAgent();
    const res = await agent.fetch('/api/v1/openapi');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    doc = (await res.json()) as OpenApiDocument;
    conformance = createOpenApiValidator(doc);

    endpointId = (await createEndpoint(agent, agent.liveKey, { url: 'https://a.example/x', events: ['document.failed'] })).id;
    const delivered = (await createEndpoint(agent, agent.liveKey, { url: 'https://b.example/y', active: false })).id;
    agent.store.sqlite
      .prepare('update webhook_endpoints set last_status=?, last_delivered_at=? where id=?')
      .run('200', '2026-03-01T12:00:00.000Z', delivered);
    noCapabilityKey = agent.addBook('sin-api', { accountingApi: false }).key;
    signingOnlyKey = agent.addBook('solo-firma', { scopes: ['signing'] }).key;
  });
  afterAll(() => agent?.close());

  const context = (): Context => ({
    headers: jsonApiHeaders(agent.liveKey),
    id: endpointId,
    item: `${ENDPOINTS}/${endpointId}`,
    noCapabilityKey,
    signingOnlyKey,
  });

  it('is served without a key as an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/openapi', ENDPOINTS, `${ENDPOINTS}/{id}`]));
  });

  it('passes swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as unknown as OpenAPIV3_1.Document)).resolves.toBeTruthy();
  });

  it('lets the conformance check reject a body that breaks the schema', () => {
    const list = (attributes: Record<string, unknown>) =>
      JSON.stringify({ data: [{ type: 'webhook_endpoint', id: UNKNOWN_ID, attributes }], links: { self: null } });
    const check = (payload: string, status = 200, contentType = JSONAPI) =>
      conformance.validate({ method: 'GET', path: ENDPOINTS, status, contentType, body: payload });
    expect(check(list({ url: 'https://a.example' }))).toEqual([]);
    expect(check(list({ url: 'https://a.example', secret: 'filtrado' }))).not.toEqual([]);
    expect(check(list({ last_delivered_at: 'ayer' }))).not.toEqual([]);
    expect(check(list({ events: ['document.nope'] }))).not.toEqual([]);
    expect(check(list({}), 200, 'text/html')).not.toEqual([]);
    expect(check(list({}), 418)).not.toEqual([]);
    expect(conformance.validate({ method: 'PUT', path: ENDPOINTS, status: 200, contentType: JSONAPI, body: '{}' })).not.toEqual([]);
    expect(conformance.validate({ method: 'GET', path: '/api/v1/nada', status: 200, contentType: JSONAPI, body: '{}' })).not.toEqual([]);
  });

  it('documents both catalogs as read-only list and get operations', async () => {
    for (const [path, type] of [
      ['/api/v1/identification-types', 'identification_type'],
      ['/api/v1/tax-types', 'tax_type'],
    ] as const) {
      const collection = doc.paths[path];
      const item = doc.paths[`${path}/{id}`];
      expect(collection, path).toBeDefined();
      expect(item, `${path}/{id}`).toBeDefined();
      expect(Object.keys(collection!).filter((k) => k !== 'parameters')).toEqual(['get']);
      expect(Object.keys(item!).filter((k) => k !== 'parameters')).toEqual(['get']);
      expect(collection!.get).toMatchObject({
        responses: { '200': { content: { [JSONAPI]: { schema: { $ref: `#/components/schemas/${type}_list` } } } } },
      });
      expect(doc.components?.schemas).toHaveProperty(type);
      // Read-only: the server agrees that nothing but GET is there.
      const post = await agent.fetch(path, { method: 'POST', headers: jsonApiHeaders(agent.liveKey), body: '{}' });
      expect(post.status).toBe(405);
    }
  });

  it('describes no path that the server does not answer', async () => {
    const { id: doomed } = await createEndpoint(agent, agent.liveKey);
    // A live signing request with a reference_id, for GET /api/v1/signature-requests/{id}.
    const now = new Date().toISOString();
    agent.store.sqlite
      .prepare(
        `insert or ignore into signing_requests (id, environment, status, subject, reference_id, created_at, updated_at)
         values ('00000000-0000-4000-8000-00000000000a', 'live', 'draft', 'OpenAPI', 'ref-openapi', ?, ?)`,
      )
      .run(now, now);
    // A live purchase, for GET /api/v1/purchases/{id} (its facts as core/fiscal/purchases records them).
    const facts = {
      accessKey: '2511202601179001167400110010010000000421234567813', codDoc: '01', version: '2.1.0', ambiente: 2,
      supplier: { ruc: '1790011674001', name: 'Distribuidora Ñandú', address: 'Quito' }, buyer: { idTypeCode: '04', taxId: '1792146739001', name: 'ACME' },
      numero: '001-001-000000042', issueDate: '2026-11-25', currency: 'DOLAR', totalWithoutTaxes: '100.00', totalDiscount: '0.00',
      taxes: [{ codigo: '2', codigoPorcentaje: '4', baseImponible: '100.00', tarifa: '15', valor: '15.00' }], grandTotal: '115.00', payments: [{ method: '20', amount: '115.00' }],
    };
    agent.store.sqlite
      .prepare(
        `insert or ignore into purchases (id, book_id, environment, access_key, source, numero, issue_date, supplier_ruc, supplier_name, currency, subtotal, grand_total, facts, xml, signer_name, authorization_number, authorization_date, created_at)
         values ('00000000-0000-4000-8000-00000000000b', ?, 'live', ?, 'sri', '001-001-000000042', '2026-11-25', '1790011674001', 'Distribuidora Ñandú', 'DOLAR', '100.00', '115.00', ?, '<factura/>', 'Firmante', ?, '2026-11-25T10:00:00-05:00', ?)`,
      )
      .run(agent.book.id, facts.accessKey, JSON.stringify(facts), facts.accessKey, now);
    const concrete = (template: string): string =>
      template
        .replace('/api/v1/purchases/{id}', '/api/v1/purchases/00000000-0000-4000-8000-00000000000b')
        .replace('/api/v1/signature-requests/{id}', '/api/v1/signature-requests/ref-openapi')
        .replace(`${ENDPOINTS}/{id}`, `${ENDPOINTS}/${doomed}`)
        .replace('/api/v1/identification-types/{id}', '/api/v1/identification-types/ec-ruc')
        .replace('/api/v1/tax-types/{id}', '/api/v1/tax-types/pe-igv');
    const bodies: Record<string, string> = {
      post: body({ url: 'https://c.example/z', secret: 'un-secreto-largo' }),
      patch: JSON.stringify({ data: { type: 'webhook_endpoint', id: doomed, attributes: { active: false } } }),
    };
    // DELETE last, so the other operations still find the resource.
    const operations = conformance.operations().sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    expect(operations.length).toBeGreaterThanOrEqual(10);
    for (const { method, path } of operations) {
      expect(path, `${path} has no {placeholder} left`).not.toMatch(/\{(?!id\})/);
      const url = concrete(path);
      const res = await agent.fetch(url, { method: method.toUpperCase(), headers: jsonApiHeaders(agent.liveKey), ...(bodies[method] ? { body: bodies[method] } : {}) });
      expect(res.status, `${method.toUpperCase()} ${url}`).toBeLessThan(300);
      expect(await conformance.check(method.toUpperCase(), url, res)).toEqual([]);
    }
  });

  describe('conformance of real responses', () => {
    /** Built per case when it runs: they need the agent, its keys and the endpoint created above. */
    const cases: Case[] = [
      { name: 'a list', method: 'GET', status: 200, request: (c) => [ENDPOINTS, { headers: c.headers }] },
      { name: 'a list with a sparse fieldset', method: 'GET', status: 200, request: (c) => [`${ENDPOINTS}?fields%5Bwebhook_endpoint%5D=url,last_delivered_at`, { headers: c.headers }] },
      { name: 'a list with an empty fieldset', method: 'GET', status: 200, request: (c) => [`${ENDPOINTS}?fields%5Bwebhook_endpoint%5D=`, { headers: c.headers }] },
      { name: 'a counted, clamped page', method: 'GET', status: 200, request: (c) => [`${ENDPOINTS}?page%5Blimit%5D=500&page%5Bcount%5D=true&sort=-last_delivered_at`, { headers: c.headers }] },
      {
        name: 'a filtered list',
        method: 'GET',
        status: 200,
        request: (c) => [`${ENDPOINTS}?filter%5Bor%5D%5B0%5D%5Burl%5D%5Bcontains%5D=a&filter%5Bor%5D%5B1%5D%5Bactive%5D=false`, { headers: c.headers }],
      },
      { name: 'one resource', method: 'GET', status: 200, request: (c) => [c.item, { headers: c.headers }] },
      { name: 'one resource with a sparse fieldset', method: 'GET', status: 200, request: (c) => [`${c.item}?fields%5Bwebhook_endpoint%5D=active`, { headers: c.headers }] },
      {
        name: 'a creation',
        method: 'POST',
        status: 201,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 'https://d.example/new', secret: 'un-secreto-largo', events: [] }) }],
      },
      {
        name: 'an update that pauses and rotates the secret',
        method: 'PATCH',
        status: 200,
        request: (c) => [c.item, { method: 'PATCH', headers: c.headers, body: body({ active: false, secret: 'otro-secreto-largo' }, { id: c.id }) }],
      },
      { name: 'an unknown filter attribute (400)', method: 'GET', status: 400, request: (c) => [`${ENDPOINTS}?filter%5Bsecret%5D=x`, { headers: c.headers }] },
      { name: 'an unknown sort attribute (400)', method: 'GET', status: 400, request: (c) => [`${ENDPOINTS}?sort=events`, { headers: c.headers }] },
      { name: 'a bad page value (400)', method: 'GET', status: 400, request: (c) => [`${ENDPOINTS}?page%5Blimit%5D=0`, { headers: c.headers }] },
      { name: 'an unknown field (400)', method: 'GET', status: 400, request: (c) => [`${c.item}?fields%5Bwebhook_endpoint%5D=secret`, { headers: c.headers }] },
      { name: 'a query nested deeper than 10 (400)', method: 'GET', status: 400, request: (c) => [`${ENDPOINTS}?filter${'[not]'.repeat(10)}[url]=x`, { headers: c.headers }] },
      {
        name: 'an attribute of the wrong type (400)',
        method: 'POST',
        status: 400,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 1, secret: 'un-secreto-largo' }) }],
      },
      {
        name: 'an unknown attribute (400)',
        method: 'POST',
        status: 400,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 'https://e.example', secret: 'un-secreto-largo', color: 'red' }) }],
      },
      { name: 'malformed JSON (400)', method: 'POST', status: 400, request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: '{"data":' }] },
      {
        name: 'a client-generated id (403)',
        method: 'POST',
        status: 403,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 'https://e.example', secret: 'un-secreto-largo' }, { id: UNKNOWN_ID }) }],
      },
      { name: 'an unknown id (404)', method: 'GET', status: 404, request: (c) => [`${ENDPOINTS}/${UNKNOWN_ID}`, { headers: c.headers }] },
      {
        name: 'an update of an unknown id (404)',
        method: 'PATCH',
        status: 404,
        request: (c) => [`${ENDPOINTS}/${UNKNOWN_ID}`, { method: 'PATCH', headers: c.headers, body: body({}, { id: UNKNOWN_ID }) }],
      },
      { name: 'a deletion of an unknown id (404)', method: 'DELETE', status: 404, request: (c) => [`${ENDPOINTS}/${UNKNOWN_ID}`, { method: 'DELETE', headers: c.headers }] },
      { name: 'an unknown catalog code (404)', method: 'GET', status: 404, request: (c) => ['/api/v1/tax-types/xx-nada', { headers: c.headers }] },
      { name: 'an Accept without JSON:API (406)', method: 'GET', status: 406, request: (c) => [ENDPOINTS, { headers: { ...c.headers, Accept: 'text/html' } }] },
      {
        name: 'another data.type (409)',
        method: 'POST',
        status: 409,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: JSON.stringify({ data: { type: 'tax_type', attributes: {} } }) }],
      },
      {
        name: 'a data.id that is not the URL’s (409)',
        method: 'PATCH',
        status: 409,
        request: (c) => [c.item, { method: 'PATCH', headers: c.headers, body: body({}, { id: UNKNOWN_ID }) }],
      },
      {
        name: 'a body over 1 MiB (413)',
        method: 'POST',
        status: 413,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 'https://e.example', secret: 'x'.repeat(1_100_000) }) }],
      },
      {
        name: 'a body sent as application/json (415)',
        method: 'POST',
        status: 415,
        request: (c) => [
          ENDPOINTS,
          { method: 'POST', headers: { ...c.headers, 'Content-Type': 'application/json' }, body: body({ url: 'https://e.example', secret: 'un-secreto-largo' }) },
        ],
      },
      {
        name: 'a plain-HTTP url (422)',
        method: 'POST',
        status: 422,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: c.headers, body: body({ url: 'http://e.example', secret: 'un-secreto-largo' }) }],
      },
      {
        name: 'an unknown event in an update (422)',
        method: 'PATCH',
        status: 422,
        request: (c) => [c.item, { method: 'PATCH', headers: c.headers, body: body({ events: ['document.nope'] }, { id: c.id }) }],
      },
      { name: 'a list without a key (401)', method: 'GET', status: 401, request: () => [ENDPOINTS, { headers: { Accept: JSONAPI } }] },
      {
        name: 'a creation with an unknown key (401)',
        method: 'POST',
        status: 401,
        request: () => [ENDPOINTS, { method: 'POST', headers: jsonApiHeaders('sello_live_nope'), body: body({ url: 'https://e.example', secret: 'un-secreto-largo' }) }],
      },
      { name: 'a catalog without a key (401)', method: 'GET', status: 401, request: () => ['/api/v1/identification-types', {}] },
      { name: 'a list by a book without accounting_api (403)', method: 'GET', status: 403, request: (c) => [ENDPOINTS, { headers: jsonApiHeaders(c.noCapabilityKey) }] },
      { name: 'a list by a key without the accounting scope (403)', method: 'GET', status: 403, request: (c) => [ENDPOINTS, { headers: jsonApiHeaders(c.signingOnlyKey) }] },
      {
        name: 'an update by a book without accounting_api (403)',
        method: 'PATCH',
        status: 403,
        request: (c) => [c.item, { method: 'PATCH', headers: jsonApiHeaders(c.noCapabilityKey), body: body({}, { id: c.id }) }],
      },
      {
        name: 'a creation by a book without accounting_api (403)',
        method: 'POST',
        status: 403,
        request: (c) => [ENDPOINTS, { method: 'POST', headers: jsonApiHeaders(c.noCapabilityKey), body: body({ url: 'https://e.example', secret: 'un-secreto-largo' }) }],
      },
      { name: 'the identification types', method: 'GET', status: 200, request: (c) => ['/api/v1/identification-types?page%5Blimit%5D=250', { headers: c.headers }] },
      { name: 'the tax types, filtered and sorted', method: 'GET', status: 200, request: (c) => ['/api/v1/tax-types?filter%5Bcountry%5D=PE&sort=-authority_code', { headers: c.headers }] },
      { name: 'one identification type', method: 'GET', status: 200, request: (c) => ['/api/v1/identification-types/ec-ruc', { headers: c.headers }] },
      { name: 'the document itself', method: 'GET', status: 200, request: () => ['/api/v1/openapi', {}] },
    ];

    it('cover every status the contract names for these resources', () => {
      const statuses = new Set(cases.map((c) => c.status));
      for (const s of [200, 201, 400, 401, 403, 404, 406, 409, 413, 415, 422]) expect(statuses.has(s), String(s)).toBe(true);
    });

    it.each(cases)('documents the response to $name, and the body conforms', async ({ method, status, request }) => {
      const [path, init] = request(context());
      const res = await agent.fetch(path, init);
      expect(res.status, `${method} ${path}`).toBe(status);
      if (status === 201) expect(res.headers.get('location')).toMatch(new RegExp(`${ENDPOINTS}/[0-9a-f-]{36}$`));
      expect(await conformance.check(method, path, res)).toEqual([]);
    });

    it('documents the 429 of the rate limit, and its body conforms', async () => {
      const limited = await startTestAgent({ rateLimitPerMinute: 1 });
      try {
        const first = await limited.fetch(ENDPOINTS, { headers: jsonApiHeaders(limited.liveKey) });
        expect(first.status).toBe(200);
        for (const [method, init] of [
          ['GET', { headers: jsonApiHeaders(limited.liveKey) }],
          ['POST', { method: 'POST', headers: jsonApiHeaders(limited.liveKey), body: body({ url: 'https://e.example', secret: 'un-secreto-largo' }) }],
        ] as const) {
          const res = await limited.fetch(ENDPOINTS, init);
          expect(res.status, method).toBe(429);
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(await conformance.check(method, ENDPOINTS, res)).toEqual([]);
        }
      } finally {
        await limited.close();
      }
    });
  });
});
