import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

interface ListBody {
  data: Array<{ id: string; attributes: Record<string, unknown> }>;
  links: Record<string, string | null>;
  meta: { page: { limit: number; offset: number; total?: number; limit_clamped?: boolean } };
}

describe('JSON:API list queries on webhook endpoints', () => {
  let agent: TestAgent;
  const ids: string[] = [];
  beforeAll(async () => {
    agent = await startTestAgent();
    for (let i = 0; i < 30; i++) {
      const { id } = await createEndpoint(agent, agent.liveKey, { url: `https://h${String(i).padStart(2, '0')}.example/x`, active: i % 3 !== 0 });
      ids.push(id);
    }
  });
  afterAll(() => agent.close());

  const list = async (query: string): Promise<{ status: number; body: ListBody & { errors?: Array<{ code: string; source?: unknown }> } }> => {
    const res = await agent.fetch(`/api/v1/webhook-endpoints?${query}`, { headers: jsonApiHeaders(agent.liveKey) });
    return { status: res.status, body: (await res.json()) as ListBody & { errors?: Array<{ code: string; source?: unknown }> } };
  };

  it('pages with the default limit of 25 and links that percent-encode brackets', async () => {
    const { body } = await list('');
    expect(body.data).toHaveLength(25);
    expect(body.meta.page).toEqual({ limit: 25, offset: 0 });
    expect(body.links.prev).toBeNull();
    expect(body.links.next).toContain('page%5Boffset%5D=25');
    expect(body.links.first).toContain('page%5Boffset%5D=0');
  });

  it('follows next links to the end, where next is null', async () => {
    const seen: string[] = [];
    let next: string | null = `${agent.baseUrl}/api/v1/webhook-endpoints?page[limit]=7&page[count]=true&sort=url`;
    while (next) {
      const res: Response = await fetch(next, { headers: jsonApiHeaders(agent.liveKey) });
      const body = (await res.json()) as ListBody;
      seen.push(...body.data.map((d) => d.id));
      expect(body.meta.page.total).toBe(30);
      next = body.links.next ?? null;
    }
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
  });

  it('gives last and total with page[count]=true', async () => {
    const { body } = await list('page[limit]=10&page[offset]=10&page[count]=true');
    expect(body.meta.page.total).toBe(30);
    expect(body.links.last).toContain('page%5Boffset%5D=20');
    expect(body.links.prev).toContain('page%5Boffset%5D=0');
  });

  it('clamps page[limit] above 250 and says so in meta', async () => {
    const { status, body } = await list('page[limit]=100000');
    expect(status).toBe(200);
    expect(body.meta.page.limit).toBe(250);
    expect(body.meta.page.limit_clamped).toBe(true);
    expect(body.data).toHaveLength(30);
  });

  it('refuses bad page values with 400 invalid_pagination', async () => {
    const before = snapshot(agent);
    for (const [query, parameter] of [
      ['page[limit]=-1', 'page[limit]'],
      ['page[limit]=abc', 'page[limit]'],
      ['page[limit]=0', 'page[limit]'],
      ['page[offset]=-5', 'page[offset]'],
      ['page[count]=maybe', 'page[count]'],
      ['page[size]=3', 'page[size]'],
    ] as const) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.errors?.[0]).toMatchObject({ code: 'invalid_pagination', source: { parameter } });
    }
    expect(snapshot(agent)).toBe(before);
  });

  it('filters by equality, operators, and/or/not', async () => {
    const paused = await list('filter[active]=false&page[limit]=250');
    expect(paused.body.data).toHaveLength(10);
    const two = await list('filter[or][0][url][contains]=h01.&filter[or][1][url][contains]=h02.');
    expect(two.body.data.map((d) => d.attributes.url).sort()).toEqual(['https://h01.example/x', 'https://h02.example/x']);
    const notPaused = await list('filter[not][active]=false&page[limit]=250');
    expect(notPaused.body.data).toHaveLength(20);
    const inList = await list(`filter[id][in][0]=${ids[0]}&filter[id][in][1]=${ids[1]}`);
    expect(inList.body.data.map((d) => d.id).sort()).toEqual([ids[0], ids[1]].sort());
    const range = await list('filter[url][greater_than_or_equal]=https://h25&page[limit]=250');
    expect(range.body.data).toHaveLength(5);
    const nil = await list('filter[last_status][is_nil]=true&page[limit]=250');
    expect(nil.body.data).toHaveLength(30);
  });

  it('sorts by several attributes, - for descending', async () => {
    const { body } = await list('sort=active,-url&page[limit]=250');
    const urls = body.data.map((d) => `${String(d.attributes.active)} ${String(d.attributes.url)}`);
    expect(urls).toEqual([...urls].sort((a, b) => (a.split(' ')[0] === b.split(' ')[0] ? b.localeCompare(a) : a.localeCompare(b))));
    expect(body.data[0]!.attributes.active).toBe(false);
  });

  it('keeps filter, sort and fields in the pagination links', async () => {
    const { body } = await list('filter[active]=true&sort=-url&fields[webhook_endpoint]=url&page[limit]=5');
    const next = new URL(body.links.next!);
    expect(next.searchParams.get('filter[active]')).toBe('true');
    expect(next.searchParams.get('sort')).toBe('-url');
    expect(next.searchParams.get('fields[webhook_endpoint]')).toBe('url');
    expect(body.data[0]!.attributes).toEqual({ url: expect.any(String) });
  });

  it('refuses an unknown filter field or operator with 400 invalid_filter naming the parameter', async () => {
    const cases = [
      ['filter[colour]=red', 'filter[colour]'],
      ['filter[secret]=x', 'filter[secret]'],
      ['filter[events]=x', 'filter[events]'],
      ['filter[url][like]=x', 'filter[url][like]'],
      ['filter[active][contains]=t', 'filter[active][contains]'],
      ['filter[active]=yes', 'filter[active]'],
      ['filter[last_delivered_at][greater_than]=yesterday', 'filter[last_delivered_at][greater_than]'],
      ['filter[or][url]=x', 'filter[or]'],
      ['filter[url][in]=x', 'filter[url][in]'],
    ] as const;
    for (const [query, parameter] of cases) {
      const { status, body } = await list(query);
      expect(status, query).toBe(400);
      expect(body.errors?.[0], query).toMatchObject({ code: 'invalid_filter', source: { parameter } });
    }
  });

  it('refuses a filter nested 50 deep with 400, never truncating it', async () => {
    const key = `filter${'[not]'.repeat(50)}[active]`;
    const { status, body } = await list(`${encodeURIComponent(key)}=true`);
    expect(status).toBe(400);
    expect(body.errors?.[0]).toMatchObject({ code: 'invalid_query' });
    const { status: status11 } = await list(`filter${'[not]'.repeat(10)}[active]=true`);
    expect(status11).toBe(400);
    const { status: ok } = await list(`filter${'[not]'.repeat(8)}[active]=true`);
    expect(ok).toBe(200);
  });

  it('refuses an unknown sort field with 400 invalid_sort', async () => {
    for (const sort of ['colour', '-secret', 'events', 'url,', '']) {
      const { status, body } = await list(`sort=${sort}`);
      expect(status, sort).toBe(400);
      expect(body.errors?.[0]).toMatchObject({ code: 'invalid_sort', source: { parameter: 'sort' } });
    }
  });

  it('refuses empty-bracket arrays and unknown parameters with 400', async () => {
    expect((await list('filter[url][in][]=x')).status).toBe(400);
    expect((await list('include=book')).body.errors?.[0]).toMatchObject({ code: 'invalid_query', source: { parameter: 'include' } });
  });
});
