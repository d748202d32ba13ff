/**
 * The JSON:API resources through an independent client, `kitsu` (ENGINEERING:
 * "Independent clients to test against").
 *
 * Kitsu derives both the URL and `data.type` of a write from one model name
 * (`post('webhook-endpoints', …)` sends `type: 'webhook-endpoints'`), while this
 * API has plural kebab-case paths and singular snake_case types. So: no
 * pluralising and no camelCasing, reads and deletes by path
 * (`get('webhook-endpoints')`), and writes through `request({url, type})`, the
 * client's own way to name the type apart from the URL.
 */
import Kitsu from 'kitsu';
import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/agent.js';

interface WebhookEndpoint {
  id: string;
  type: 'webhook_endpoint';
  active: boolean;
  events: string[];
  tenant_slug: string;
  url: string;
  book_id: string;
  last_delivered_at: string | null;
  last_status: string | null;
  links: { self: string };
}

interface CatalogEntry {
  id: string;
  type: string;
  code: string;
  authority_code: string;
  country: 'EC' | 'PE';
  name: string;
  group?: string;
}

/** What kitsu resolves to: the deserialised document plus status and headers. */
interface KitsuResponse<T> {
  data: T;
  links?: Record<string, string | null>;
  meta?: { page?: { limit: number; offset: number; total?: number } };
  jsonapi?: { version: string };
  status: number;
  headers?: Record<string, string>;
}

/** What kitsu rejects with: the axios error, with the JSON:API `errors` copied on it. */
interface KitsuError {
  errors?: Array<{ status: string; code: string; source?: { pointer?: string; parameter?: string } }>;
  response?: { status: number };
}

async function rejection(promise: Promise<unknown>): Promise<KitsuError> {
  try {
    await promise;
  } catch (err) {
    return err as KitsuError;
  }
  throw new Error('expected the request to fail');
}

describe('the JSON:API resources through the kitsu client', () => {
  let agent: TestAgent;
  let api: Kitsu;

  beforeAll(async () => {
    agent = await startTestAgent();
    api = new Kitsu({
      baseURL: `${agent.baseUrl}/api/v1`,
      headers: { Authorization: `Bearer ${agent.liveKey}` },
      query: (params: Record<string, unknown>) => qs.stringify(params, { arrayFormat: 'indices' }),
      pluralize: false,
      camelCaseTypes: false,
      resourceCase: 'kebab',
    });
  });
  afterAll(() => agent?.close());

  const create = (attributes: Record<string, unknown>): Promise<KitsuResponse<WebhookEndpoint>> =>
    api.request({ method: 'POST', url: 'webhook-endpoints', type: 'webhook_endpoint', body: attributes });

  const update = (id: string, attributes: Record<string, unknown>): Promise<KitsuResponse<WebhookEndpoint>> =>
    api.request({ method: 'PATCH', url: `webhook-endpoints/${id}`, type: 'webhook_endpoint', body: { id, ...attributes } });

  it('creates, lists, reads, pauses, rotates and deletes an endpoint, never showing the secret', async () => {
    const created = await create({ url: 'https://erp.example/hooks/kitsu', secret: 'secreto-de-kitsu-1', events: ['document.authorized'] });
    expect(created.status).toBe(201);
    expect(created.headers?.location).toBe(created.data.links.self);
    expect(created.jsonapi).toEqual({ version: '1.1' });
    expect(created.data).toMatchObject({
      type: 'webhook_endpoint',
      active: true,
      events: ['document.authorized'],
      tenant_slug: 'oficina-central',
      url: 'https://erp.example/hooks/kitsu',
      book_id: agent.book.id,
      last_delivered_at: null,
      last_status: null,
    });
    const id = created.data.id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await create({ url: 'https://otro.example/hooks', secret: 'secreto-de-kitsu-2', active: false });

    // `page[count]` is not in kitsu's typings of `page`, hence the variable.
    const listParams = {
      filter: { or: [{ url: { contains: 'kitsu' } }, { active: 'false' }] },
      sort: '-url',
      page: { limit: 1, offset: 0, count: true },
    };
    const listed: KitsuResponse<WebhookEndpoint[]> = await api.get('webhook-endpoints', { params: listParams });
    expect(listed.status).toBe(200);
    expect(listed.data.map((e) => e.url)).toEqual(['https://otro.example/hooks']);
    expect(listed.meta?.page).toEqual({ limit: 1, offset: 0, total: 2 });
    expect(listed.links?.next).toMatch(/page%5Boffset%5D=1/);

    const sparse: KitsuResponse<WebhookEndpoint[]> = await api.get('webhook-endpoints', {
      params: { filter: { id }, fields: { webhook_endpoint: 'url,active' } },
    });
    expect(sparse.data).toEqual([{ id, type: 'webhook_endpoint', url: 'https://erp.example/hooks/kitsu', active: true, links: { self: created.data.links.self } }]);

    const one: KitsuResponse<WebhookEndpoint> = await api.get(`webhook-endpoints/${id}`);
    expect(one.data).toEqual(created.data);

    const paused = await update(id, { active: false });
    expect(paused.status).toBe(200);
    expect(paused.data).toMatchObject({ id, active: false, url: 'https://erp.example/hooks/kitsu', events: ['document.authorized'] });

    const secretBefore = agent.store.sqlite.prepare('select secret_sealed from webhook_endpoints where id = ?').get(id);
    const rotated = await update(id, { secret: 'secreto-rotado-de-kitsu' });
    expect(rotated.data).toMatchObject({ id, active: false });
    expect(agent.store.sqlite.prepare('select secret_sealed from webhook_endpoints where id = ?').get(id)).not.toEqual(secretBefore);

    for (const response of [created, listed, sparse, one, paused, rotated]) {
      expect(JSON.stringify(response.data)).not.toMatch(/secret/i);
    }

    const removed: KitsuResponse<undefined> = await api.delete('webhook-endpoints', id);
    expect(removed.status).toBe(204);
    const gone = await rejection(api.get(`webhook-endpoints/${id}`));
    expect(gone.response?.status).toBe(404);
    expect(gone.errors?.[0]).toMatchObject({ status: '404', code: 'resource_not_found' });
  });

  it('hands back JSON:API errors that kitsu exposes as err.errors', async () => {
    // kitsu's own `post` names the type after the URL: the server refuses the mismatch.
    const conflict = await rejection(api.post('webhook-endpoints', { url: 'https://a.example', secret: 'un-secreto-largo' }));
    expect(conflict.response?.status).toBe(409);
    expect(conflict.errors?.[0]).toMatchObject({ code: 'type_conflict', source: { pointer: '/data/type' } });

    const plainHttp = await rejection(create({ url: 'http://a.example', secret: 'un-secreto-largo' }));
    expect(plainHttp.response?.status).toBe(422);
    expect(plainHttp.errors?.[0]).toMatchObject({ code: 'invalid_attribute', source: { pointer: '/data/attributes/url' } });

    const badFilter = await rejection(api.get('webhook-endpoints', { params: { filter: { url: { like: 'a' } } } }));
    expect(badFilter.response?.status).toBe(400);
    expect(badFilter.errors?.[0]).toMatchObject({ code: 'invalid_filter', source: { parameter: 'filter[url][like]' } });
  });

  it('lists the identification types with their spec codes', async () => {
    const res: KitsuResponse<CatalogEntry[]> = await api.get('identification-types', { params: { page: { limit: 250 }, sort: 'code' } });
    expect(res.status).toBe(200);
    const codes = Object.fromEntries(res.data.map((t) => [t.code, t.authority_code]));
    expect(codes).toEqual({
      'ec-cedula': '05',
      'ec-consumidor-final': '07',
      'ec-identificacion-exterior': '08',
      'ec-pasaporte': '06',
      'ec-ruc': '06',
      'pe-carnet-extranjeria': '4',
      'pe-cedula-diplomatica': 'A',
      'pe-dni': '1',
      'pe-no-domiciliado': 'B',
      'pe-no-tax-id': '0',
      'pe-numero-identificacion': 'D',
      'pe-pasaporte': '7',
      'pe-ruc': '6',
      'pe-tarjeta-andina': 'E',
    });
    for (const t of res.data) {
      expect(t).toMatchObject({ type: 'identification_type', id: t.code, country: t.code.startsWith('ec-') ? 'EC' : 'PE' });
      expect(t.name).toEqual(expect.any(String));
    }
  });

  it('lists the tax types with their spec codes and groups, and filters them', async () => {
    const res: KitsuResponse<CatalogEntry[]> = await api.get('tax-types', { params: { page: { limit: 250 } } });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.data.map((t) => [t.code, t.authority_code]))).toEqual({
      'ec-iva-12': '2',
      'ec-iva-0': '0',
      'ec-iva-14': '3',
      'ec-no-objeto-iva': '6',
      'ec-exento-iva': '7',
      'ec-iva-15': '4',
      'ec-iva-5': '5',
      'ec-iva-13': '10',
      'ec-iva-8': '8',
      'ec-ice-bebidas-alcoholicas': '3031',
      'ec-ice-cerveza-artesanal': '3041',
      'pe-igv': '1000',
      'pe-isc': '2000',
      'pe-ivap': '1016',
      'pe-exportacion': '9995',
      'pe-gratuito': '9996',
      'pe-exonerado': '1000',
    });
    for (const t of res.data) {
      expect(t).toMatchObject({ type: 'tax_type', id: t.code, country: t.code.startsWith('ec-') ? 'EC' : 'PE' });
      expect(t.group).toEqual(expect.any(String));
    }

    const peru: KitsuResponse<CatalogEntry[]> = await api.get('tax-types', {
      params: { filter: { country: 'PE', authority_code: { in: ['1000', '2000'] } }, sort: 'code' },
    });
    expect(peru.data.map((t) => t.code)).toEqual(['pe-exonerado', 'pe-igv', 'pe-isc']);
  });
});
