import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

interface ErrorBody {
  errors: Array<{ status: string; code: string; title: string; detail: string; source?: { pointer?: string; parameter?: string } }>;
}

describe('webhook endpoints', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  const post = (body: unknown, key = agent.liveKey) =>
    agent.fetch('/api/v1/webhook-endpoints', { method: 'POST', headers: jsonApiHeaders(key), body: typeof body === 'string' ? body : JSON.stringify(body) });
  const patch = (id: string, body: unknown, key = agent.liveKey) =>
    agent.fetch(`/api/v1/webhook-endpoints/${id}`, { method: 'PATCH', headers: jsonApiHeaders(key), body: JSON.stringify(body) });
  const get = (path: string, key = agent.liveKey) => agent.fetch(path, { headers: jsonApiHeaders(key) });

  /** Sends a bad request, expects the status and error, and proves the store did not change. */
  async function rejects(send: () => Promise<Response>, status: number, code: string, source?: { pointer?: string; parameter?: string }) {
    const before = snapshot(agent);
    const res = await send();
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.errors[0]).toMatchObject({ status: String(status), code });
    expect(body.errors[0]!.detail.length).toBeGreaterThan(10);
    if (source) expect(body.errors[0]!.source).toEqual(source);
    expect(snapshot(agent)).toBe(before);
    return body;
  }

  describe('POST', () => {
    it('creates an endpoint: 201, Location = links.self, book and tenant from the key, no secret', async () => {
      const res = await post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://erp.example/h', secret: 'un-secreto-largo', events: ['document.authorized'] } } });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { jsonapi: unknown; data: { id: string; attributes: Record<string, unknown>; links: { self: string } } };
      expect(body.jsonapi).toEqual({ version: '1.1' });
      expect(res.headers.get('location')).toBe(body.data.links.self);
      expect(res.headers.get('content-type')).toBe('application/vnd.api+json');
      expect(body.data.attributes).toEqual({
        active: true,
        events: ['document.authorized'],
        tenant_slug: 'oficina-central',
        url: 'https://erp.example/h',
        book_id: agent.book.id,
        last_delivered_at: null,
        last_status: null,
      });
      expect(JSON.stringify(body)).not.toContain('un-secreto-largo');
      expect(JSON.stringify(snapshot(agent))).not.toContain('un-secreto-largo');
    });

    it('accepts an empty events list as "all events"', async () => {
      const { body } = await createEndpoint(agent, agent.liveKey, { events: [] });
      expect((body.data as { attributes: { events: unknown } }).attributes.events).toEqual([]);
    });

    it('refuses an http:// url with 422 invalid_attribute at /data/attributes/url', async () => {
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'http://erp.example/h', secret: 'un-secreto-largo' } } }), 422, 'invalid_attribute', {
        pointer: '/data/attributes/url',
      });
    });

    it('refuses a url that is not a URL with 422', async () => {
      for (const url of ['erp.example/h', 'not a url', '', 'ftp://erp.example', 'https://user:pw@erp.example/h']) {
        await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url, secret: 'un-secreto-largo' } } }), 422, 'invalid_attribute', { pointer: '/data/attributes/url' });
      }
    });

    it('refuses unknown event names with 422 pointing at the item', async () => {
      const body = await rejects(
        () => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'un-secreto-largo', events: ['document.authorized', 'invoice.paid'] } } }),
        422,
        'invalid_attribute',
        { pointer: '/data/attributes/events/1' },
      );
      expect(body.errors[0]!.detail).toContain('invoice.paid');
    });

    it('refuses an unknown attribute with 400 at its pointer', async () => {
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'un-secreto-largo', colour: 'red' } } }), 400, 'invalid_body', {
        pointer: '/data/attributes/colour',
      });
    });

    it('refuses read-only attributes with 400', async () => {
      for (const attr of ['book_id', 'tenant_slug', 'last_status', 'last_delivered_at']) {
        await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'un-secreto-largo', [attr]: 'x' } } }), 400, 'invalid_body', {
          pointer: `/data/attributes/${attr}`,
        });
      }
    });

    it('refuses wrong attribute types with 400 at each pointer', async () => {
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 42, secret: 'un-secreto-largo' } } }), 400, 'invalid_body', { pointer: '/data/attributes/url' });
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'un-secreto-largo', active: 'yes' } } }), 400, 'invalid_body', {
        pointer: '/data/attributes/active',
      });
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'un-secreto-largo', events: 'document.failed' } } }), 400, 'invalid_body', {
        pointer: '/data/attributes/events',
      });
    });

    it('refuses a missing url or secret with 400', async () => {
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { secret: 'un-secreto-largo' } } }), 400, 'invalid_body', { pointer: '/data/attributes/url' });
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example' } } }), 400, 'invalid_body', { pointer: '/data/attributes/secret' });
    });

    it('refuses a short secret with 422', async () => {
      await rejects(() => post({ data: { type: 'webhook_endpoint', attributes: { url: 'https://e.example', secret: 'corto' } } }), 422, 'invalid_attribute', { pointer: '/data/attributes/secret' });
    });

    it('refuses another type with 409 and a client id with 403', async () => {
      await rejects(() => post({ data: { type: 'invoice', attributes: { url: 'https://e.example', secret: 'un-secreto-largo' } } }), 409, 'type_conflict', { pointer: '/data/type' });
      await rejects(
        () => post({ data: { type: 'webhook_endpoint', id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', attributes: { url: 'https://e.example', secret: 'un-secreto-largo' } } }),
        403,
        'client_id_not_supported',
        { pointer: '/data/id' },
      );
    });

    it('refuses documents without data, or data that is not an object, with 400', async () => {
      await rejects(() => post({}), 400, 'invalid_body', { pointer: '/data' });
      await rejects(() => post({ data: [] }), 400, 'invalid_body', { pointer: '/data' });
      await rejects(() => post('[1,2]'), 400, 'invalid_body', { pointer: '' });
      await rejects(() => post({ data: { attributes: {} } }), 400, 'invalid_body', { pointer: '/data/type' });
    });
  });

  describe('GET one', () => {
    it('returns the endpoint, honours fields[webhook_endpoint], and 404s another book’s', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey, { url: 'https://uno.example/h' });
      const res = await get(`/api/v1/webhook-endpoints/${id}?fields[webhook_endpoint]=url,active`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { attributes: unknown } }).data.attributes).toEqual({ url: 'https://uno.example/h', active: true });

      const other = agent.addBook('otra-empresa');
      const foreign = await get(`/api/v1/webhook-endpoints/${id}`, other.key);
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toMatchObject({ errors: [{ code: 'resource_not_found' }] });
      const otherList = (await (await get('/api/v1/webhook-endpoints', other.key)).json()) as { data: unknown[] };
      expect(otherList.data).toEqual([]);
    });

    it('refuses an unknown sparse field and secret with 400 invalid_field', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      await rejects(() => get(`/api/v1/webhook-endpoints/${id}?fields[webhook_endpoint]=secret`), 400, 'invalid_field', { parameter: 'fields[webhook_endpoint]' });
      await rejects(() => get(`/api/v1/webhook-endpoints?fields[webhook_endpoint]=url,colour`), 400, 'invalid_field', { parameter: 'fields[webhook_endpoint]' });
    });
  });

  describe('PATCH', () => {
    it('pauses, changes events and url, and rotates the secret without returning it', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      const sealedBefore = agent.store.sqlite.prepare('select secret_sealed from webhook_endpoints where id = ?').get(id) as { secret_sealed: string };
      const res = await patch(id, {
        data: { type: 'webhook_endpoint', id, attributes: { active: false, events: ['document.failed'], url: 'https://nuevo.example/h', secret: 'otro-secreto-largo' } },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { attributes: Record<string, unknown> } };
      expect(body.data.attributes).toMatchObject({ active: false, events: ['document.failed'], url: 'https://nuevo.example/h' });
      expect(JSON.stringify(body)).not.toContain('otro-secreto-largo');
      const sealedAfter = agent.store.sqlite.prepare('select secret_sealed from webhook_endpoints where id = ?').get(id) as { secret_sealed: string };
      expect(sealedAfter.secret_sealed).not.toBe(sealedBefore.secret_sealed);
    });

    it('refuses bad patches with the right status and changes nothing', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id, attributes: { url: 'http://x.example' } } }), 422, 'invalid_attribute', { pointer: '/data/attributes/url' });
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id, attributes: { events: ['nope'] } } }), 422, 'invalid_attribute', { pointer: '/data/attributes/events/0' });
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id, attributes: { active: 1 } } }), 400, 'invalid_body', { pointer: '/data/attributes/active' });
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id, attributes: { tenant_slug: 'x' } } }), 400, 'invalid_body', { pointer: '/data/attributes/tenant_slug' });
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id: '00000000-0000-4000-8000-000000000000', attributes: {} } }), 409, 'type_conflict', { pointer: '/data/id' });
      await rejects(() => patch(id, { data: { type: 'tax_type', id, attributes: {} } }), 409, 'type_conflict', { pointer: '/data/type' });
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', attributes: {} } }), 400, 'invalid_body', { pointer: '/data/id' });
    });

    it('404s another book’s endpoint and changes nothing', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      const other = agent.addBook('tercera');
      await rejects(() => patch(id, { data: { type: 'webhook_endpoint', id, attributes: { active: false } } }, other.key), 404, 'resource_not_found');
    });
  });

  describe('DELETE', () => {
    it('deletes with 204; the endpoint is gone for GET, PATCH, DELETE and lists', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      const res = await agent.fetch(`/api/v1/webhook-endpoints/${id}`, { method: 'DELETE', headers: jsonApiHeaders(agent.liveKey) });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect((await get(`/api/v1/webhook-endpoints/${id}`)).status).toBe(404);
      expect((await agent.fetch(`/api/v1/webhook-endpoints/${id}`, { method: 'DELETE', headers: jsonApiHeaders(agent.liveKey) })).status).toBe(404);
      const list = (await (await get('/api/v1/webhook-endpoints?page[limit]=250')).json()) as { data: Array<{ id: string }> };
      expect(list.data.map((d) => d.id)).not.toContain(id);
    });

    it('404s another book’s endpoint and leaves it in place', async () => {
      const { id } = await createEndpoint(agent, agent.liveKey);
      const other = agent.addBook('cuarta');
      await rejects(() => agent.fetch(`/api/v1/webhook-endpoints/${id}`, { method: 'DELETE', headers: jsonApiHeaders(other.key) }), 404, 'resource_not_found');
      expect((await get(`/api/v1/webhook-endpoints/${id}`)).status).toBe(200);
    });
  });
});
