/**
 * Model-based test of the JSON:API list of webhook endpoints (CONTRACT §7).
 *
 * About forty endpoints are created through the API; `last_status` and
 * `last_delivered_at` (which only deliveries write) are set in SQLite. Random
 * filter trees, sorts and pages are then sent as the query string a JSON:API
 * client writes, and the ids that come back are compared, in order, with an
 * in-memory oracle written here from the semantics documented in
 * core/http/jsonapi/filter.ts:
 *
 * - two-valued logic: a NULL column matches no comparison except `is_nil=true`
 *   and `not_eq`; `not` is plain negation;
 * - `contains` is a case-sensitive substring test; strings compare bytewise;
 * - datetimes compare as instants, whatever ISO 8601 form the filter uses;
 * - rows come in the order of `sort`, NULL first ascending, ties by id ascending.
 */
import fc from 'fast-check';
import qs from 'qs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';

// ── the model ────────────────────────────────────────────────────────────────

interface EndpointRecord {
  id: string;
  url: string;
  active: boolean;
  tenant_slug: string;
  book_id: string;
  last_status: string | null;
  /** Milliseconds since the epoch, or null. */
  last_delivered_at: number | null;
}

type StringAttribute = 'url' | 'tenant_slug' | 'last_status';
type Attribute = StringAttribute | 'active' | 'last_delivered_at' | 'id';
type Operator =
  | 'eq'
  | 'not_eq'
  | 'in'
  | 'greater_than'
  | 'greater_than_or_equal'
  | 'less_than'
  | 'less_than_or_equal'
  | 'is_nil'
  | 'contains';

interface Comparison {
  op: Operator;
  value: string | string[];
}

/** One key of a filter object: a combinator or an attribute (shorthand value or operators). */
type Entry =
  | { key: 'and' | 'or'; list: FilterObject[] }
  | { key: 'not'; child: FilterObject }
  | { key: Attribute; value: string }
  | { key: Attribute; comparisons: Comparison[] };

/** A filter object: its keys are distinct and ANDed. */
interface FilterObject {
  entries: Entry[];
}

interface SortKey {
  attribute: Attribute | 'book_id';
  descending: boolean;
}

/** What `qs.stringify` receives. */
type QueryValue = string | QueryValue[] | { [key: string]: QueryValue };

function toQueryValue(object: FilterObject): QueryValue {
  const out: Record<string, QueryValue> = {};
  for (const entry of object.entries) {
    if ('list' in entry) out[entry.key] = entry.list.map(toQueryValue);
    else if ('child' in entry) out.not = toQueryValue(entry.child);
    else if ('value' in entry) out[entry.key] = entry.value;
    else out[entry.key] = Object.fromEntries(entry.comparisons.map((c) => [c.op, c.value]));
  }
  return out;
}

/** Bracket segments of the deepest parameter name under `filter`. */
function bracketDepth(value: QueryValue): number {
  if (typeof value === 'string') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(bracketDepth));
}

function parameterCount(value: QueryValue): number {
  if (typeof value === 'string') return 1;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.reduce((n, child) => n + parameterCount(child), 0);
}

// ── the oracle ───────────────────────────────────────────────────────────────

/** SQLite's BINARY collation: bytes of the UTF-8 encoding. */
function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

type Cell = string | number | null;

/** How an attribute's cell is read and how a query-string value is read for it. */
const attributeKinds: Record<Attribute | 'book_id', { cell(r: EndpointRecord): Cell; read(raw: string): Cell; compare(a: Cell, b: Cell): number }> = {
  url: { cell: (r) => r.url, read: (s) => s, compare: (a, b) => compareText(String(a), String(b)) },
  tenant_slug: { cell: (r) => r.tenant_slug, read: (s) => s, compare: (a, b) => compareText(String(a), String(b)) },
  last_status: { cell: (r) => r.last_status, read: (s) => s, compare: (a, b) => compareText(String(a), String(b)) },
  id: { cell: (r) => r.id, read: (s) => s, compare: (a, b) => compareText(String(a), String(b)) },
  book_id: { cell: (r) => r.book_id, read: (s) => s, compare: (a, b) => compareText(String(a), String(b)) },
  active: { cell: (r) => (r.active ? 1 : 0), read: (s) => (s === 'true' ? 1 : 0), compare: (a, b) => Number(a) - Number(b) },
  last_delivered_at: { cell: (r) => r.last_delivered_at, read: (s) => Date.parse(s), compare: (a, b) => Number(a) - Number(b) },
};

function matchesComparison(record: EndpointRecord, attribute: Attribute, { op, value }: Comparison): boolean {
  const kind = attributeKinds[attribute];
  const cell = kind.cell(record);
  if (op === 'is_nil') return (value === 'true') === (cell === null);
  if (op === 'not_eq') return cell === null || kind.compare(cell, kind.read(value as string)) !== 0;
  if (cell === null) return false;
  switch (op) {
    case 'eq':
      return kind.compare(cell, kind.read(value as string)) === 0;
    case 'in':
      return (value as string[]).some((v) => kind.compare(cell, kind.read(v)) === 0);
    case 'greater_than':
      return kind.compare(cell, kind.read(value as string)) > 0;
    case 'greater_than_or_equal':
      return kind.compare(cell, kind.read(value as string)) >= 0;
    case 'less_than':
      return kind.compare(cell, kind.read(value as string)) < 0;
    case 'less_than_or_equal':
      return kind.compare(cell, kind.read(value as string)) <= 0;
    case 'contains':
      return String(cell).includes(value as string);
  }
}

function matchesObject(record: EndpointRecord, object: FilterObject): boolean {
  return object.entries.every((entry) => {
    if ('list' in entry) {
      return entry.key === 'and' ? entry.list.every((o) => matchesObject(record, o)) : entry.list.some((o) => matchesObject(record, o));
    }
    if ('child' in entry) return !matchesObject(record, entry.child);
    if ('value' in entry) return matchesComparison(record, entry.key, { op: 'eq', value: entry.value });
    return entry.comparisons.every((c) => matchesComparison(record, entry.key, c));
  });
}

function oracleOrder(records: readonly EndpointRecord[], sort: readonly SortKey[]): EndpointRecord[] {
  const keys: SortKey[] = [...sort, { attribute: 'id', descending: false }];
  return [...records].sort((a, b) => {
    for (const { attribute, descending } of keys) {
      const kind = attributeKinds[attribute];
      const x = kind.cell(a);
      const y = kind.cell(b);
      // SQLite: NULL is smaller than any value.
      const order = x === null && y === null ? 0 : x === null ? -1 : y === null ? 1 : kind.compare(x, y);
      if (order !== 0) return descending ? -order : order;
    }
    return 0;
  });
}

function oracle(records: readonly EndpointRecord[], filter: FilterObject | null, sort: readonly SortKey[]): string[] {
  const kept = filter ? records.filter((r) => matchesObject(r, filter)) : records;
  return oracleOrder(kept, sort).map((r) => r.id);
}

// ── the data set ─────────────────────────────────────────────────────────────

const ENDPOINT_COUNT = 40;
const urls = [
  'https://a.example/x',
  'https://b.example/x',
  'https://b.example/xy',
  'https://ab.example/hooks',
  'https://b.example/Hooks',
  'https://a.example/hooks/v2?tenant=a&x=1',
  'https://c.example/señal',
  'https://a.example/x',
  'https://b.example/a%20b+c',
  'https://abc.example/',
  'https://b.example/hooks',
  'https://b.example/q?a[]=1',
];
const statuses = [null, '200', '500', '404', '2000', '20', null, '503', '', '201'];
const baseInstant = Date.parse('2026-03-01T00:00:00.000Z');
const instants = [
  null,
  baseInstant,
  baseInstant + 1,
  baseInstant - 1,
  baseInstant + 3_600_000,
  baseInstant - 86_400_000,
  null,
  Date.parse('2025-12-31T23:59:59.999Z'),
  baseInstant + 86_400_000,
];

/** Writes an instant as ISO 8601 at a given UTC offset (minutes), e.g. `…T05:00:00.000+05:00`. */
function atOffset(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

// ── the arbitraries ──────────────────────────────────────────────────────────

const stringOperators: Operator[] = ['eq', 'not_eq', 'in', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'is_nil', 'contains'];
const datetimeOperators: Operator[] = ['eq', 'not_eq', 'in', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'is_nil'];
const booleanOperators: Operator[] = ['eq', 'not_eq', 'in', 'is_nil'];
const idOperators: Operator[] = ['eq', 'not_eq', 'in', 'is_nil'];

/** Short strings over characters that matter to URLs and to query strings (brackets included). */
const oddString = fc.string({ unit: fc.constantFrom(...'abxyHz/.:-ñ0125 %+&=#?[]'.split('')), maxLength: 5 });

function attributeEntry(attribute: Attribute, value: fc.Arbitrary<string>, ops: Operator[]): fc.Arbitrary<Entry> {
  const comparison = fc.constantFrom(...ops).chain((op): fc.Arbitrary<Comparison> => {
    if (op === 'in') return fc.array(value, { minLength: 1, maxLength: 3 }).map((list) => ({ op, value: list }));
    if (op === 'is_nil') return fc.constantFrom('true', 'false').map((v) => ({ op, value: v }));
    return value.map((v) => ({ op, value: v }));
  });
  return fc.oneof(
    value.map((v): Entry => ({ key: attribute, value: v })),
    fc.uniqueArray(comparison, { minLength: 1, maxLength: 2, selector: (c) => c.op }).map((comparisons): Entry => ({ key: attribute, comparisons })),
  );
}

function filterArbitrary(records: readonly EndpointRecord[], foreignIds: readonly string[]): fc.Arbitrary<FilterObject> {
  // Mostly values that hit the data (and their case variants), sometimes anything.
  const urlValue = fc.oneof(
    { arbitrary: fc.constantFrom(...urls), weight: 2 },
    {
      arbitrary: fc.constantFrom('a.example', 'b.example', 'B.EXAMPLE', '.example/', 'example', '/x', 'X', 'hooks', 'Hooks', 'HOOKS', 'https://', '', 'ñ', '%20', '+', 'zzz'),
      weight: 3,
    },
    { arbitrary: oddString, weight: 1 },
  );
  const tenantValue = fc.oneof(
    { arbitrary: fc.constantFrom('oficina-central', 'oficina', 'central', 'otro-tenant', 'OFICINA-CENTRAL', 'Central', 'a', ''), weight: 4 },
    { arbitrary: oddString, weight: 1 },
  );
  const statusValue = fc.oneof(
    { arbitrary: fc.constantFrom('200', '2', '20', '2000', '201', '3', '404', '50', '500', '503', '1000', ''), weight: 4 },
    { arbitrary: oddString, weight: 1 },
  );
  const instant = fc.oneof(fc.constantFrom(...instants.filter((t): t is number => t !== null)), fc.constantFrom(baseInstant + 2, baseInstant - 7_200_000));
  const datetimeValue = fc.oneof(
    instant.map((t) => new Date(t).toISOString()),
    fc.tuple(instant, fc.constantFrom(-300, 330, 60, -600)).map(([t, offset]) => atOffset(t, offset)),
    fc.constantFrom('2026-03-01', '2026-03-02', '2025-12-31', '2026-03-01T00:00:00Z', '2026-03-01T01:00:00+01:00'),
  );
  const idValue = fc.oneof(fc.constantFrom(...records.map((r) => r.id)), fc.constantFrom(...foreignIds), fc.uuid());

  const leaf = fc.oneof(
    { arbitrary: attributeEntry('url', urlValue, stringOperators), weight: 3 },
    { arbitrary: attributeEntry('tenant_slug', tenantValue, stringOperators), weight: 1 },
    { arbitrary: attributeEntry('last_status', statusValue, stringOperators), weight: 3 },
    { arbitrary: attributeEntry('active', fc.constantFrom('true', 'false'), booleanOperators), weight: 1 },
    { arbitrary: attributeEntry('last_delivered_at', datetimeValue, datetimeOperators), weight: 3 },
    { arbitrary: attributeEntry('id', idValue, idOperators), weight: 1 },
  );

  const { object } = fc.letrec<{ object: FilterObject; entry: Entry }>((tie) => ({
    // Usually one key per object, sometimes two (implicitly ANDed).
    object: fc
      .oneof({ arbitrary: fc.tuple(tie('entry')), weight: 3 }, { arbitrary: fc.uniqueArray(tie('entry'), { minLength: 2, maxLength: 2, selector: (e) => e.key }), weight: 1 })
      .map((entries) => ({ entries })),
    // Mostly leaves, so that results are neither always empty nor always full.
    entry: fc.oneof(
      { maxDepth: 4, depthSize: 'small', depthIdentifier: 'filter' },
      { arbitrary: leaf, weight: 5 },
      { arbitrary: fc.array(tie('object'), { minLength: 1, maxLength: 3 }).map((list): Entry => ({ key: 'and', list })), weight: 1 },
      { arbitrary: fc.array(tie('object'), { minLength: 1, maxLength: 3 }).map((list): Entry => ({ key: 'or', list })), weight: 1 },
      { arbitrary: tie('object').map((child): Entry => ({ key: 'not', child })), weight: 1 },
    ),
  }));
  // CONTRACT §7: at most 10 levels of brackets. Also keep the query string of a sane size.
  return object.filter((o) => {
    const value = toQueryValue(o);
    return bracketDepth(value) <= 10 && parameterCount(value) <= 200;
  });
}

const sortable: Array<SortKey['attribute']> = ['active', 'book_id', 'id', 'last_delivered_at', 'last_status', 'tenant_slug', 'url'];
const sortArbitrary: fc.Arbitrary<SortKey[]> = fc
  .shuffledSubarray(sortable, { minLength: 0, maxLength: 4 })
  .chain((attributes) => fc.tuple(...attributes.map((attribute) => fc.boolean().map((descending): SortKey => ({ attribute, descending })))));

function sortParameter(sort: readonly SortKey[]): string {
  return sort.map((s) => `${s.descending ? '-' : ''}${s.attribute}`).join(',');
}

// ── the tests ────────────────────────────────────────────────────────────────

interface ListBody {
  data: Array<{ id: string }>;
  links: Record<string, string | null>;
  meta: { page: { limit: number; offset: number; total?: number } };
}

interface ErrorBody {
  errors: Array<{ status: string; code: string; source?: { parameter?: string; pointer?: string } }>;
}

describe('filtering, sorting and paging webhook endpoints, checked against an in-memory model', () => {
  let agent: TestAgent;
  const records: EndpointRecord[] = [];
  /** Endpoints the live key must never see: another book, the test environment, deleted. */
  const foreignIds: string[] = [];

  const list = async (query: string): Promise<{ status: number; body: unknown }> => {
    const res = await agent.fetch(`/api/v1/webhook-endpoints?${query}`, { headers: jsonApiHeaders(agent.liveKey) });
    return { status: res.status, body: await res.json() };
  };

  const listIds = async (query: string): Promise<string[]> => {
    const { status, body } = await list(query);
    expect(status, `GET ?${decodeURIComponent(query)} → ${JSON.stringify(body)}`).toBe(200);
    return (body as ListBody).data.map((d) => d.id);
  };

  const filterQuery = (filter: FilterObject | null, sort: readonly SortKey[] = []): string =>
    qs.stringify(
      { ...(filter ? { filter: toQueryValue(filter) } : {}), ...(sort.length > 0 ? { sort: sortParameter(sort) } : {}), page: { limit: '250' } },
      { arrayFormat: 'indices' },
    );

  beforeAll(async () => {
    agent = await startTestAgent({ rateLimitPerMinute: 100_000 });
    const setDelivery = agent.store.sqlite.prepare('update webhook_endpoints set last_status=?, last_delivered_at=? where id=?');
    for (let i = 0; i < ENDPOINT_COUNT; i++) {
      const url = urls[i % urls.length]!;
      const active = i % 3 !== 1;
      const { id } = await createEndpoint(agent, agent.liveKey, { url, active });
      const lastStatus = statuses[(i * 7) % statuses.length]!;
      const lastDelivered = instants[(i * 5) % instants.length]!;
      setDelivery.run(lastStatus, lastDelivered === null ? null : new Date(lastDelivered).toISOString(), id);
      records.push({ id, url, active, tenant_slug: 'oficina-central', book_id: agent.book.id, last_status: lastStatus, last_delivered_at: lastDelivered });
    }
    const other = agent.addBook('otro');
    for (const key of [agent.testKey, other.key]) {
      for (const url of ['https://a.example/x', 'https://b.example/hooks']) {
        const { id } = await createEndpoint(agent, key, { url });
        setDelivery.run('200', new Date(baseInstant).toISOString(), id);
        foreignIds.push(id);
      }
    }
    const deleted = await createEndpoint(agent, agent.liveKey, { url: 'https://a.example/x' });
    const res = await agent.fetch(`/api/v1/webhook-endpoints/${deleted.id}`, { method: 'DELETE', headers: jsonApiHeaders(agent.liveKey) });
    expect(res.status).toBe(204);
    foreignIds.push(deleted.id);
  });
  afterAll(() => agent?.close());

  it('lists exactly the key’s own endpoints, ordered by id, when no filter is given', async () => {
    expect(await listIds(filterQuery(null))).toEqual(oracle(records, null, []));
  });

  it('returns, for any filter tree within 10 levels and any sort, the ids the model predicts in the order it predicts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(filterArbitrary(records, foreignIds), { nil: null, freq: 6 }), sortArbitrary, async (filter, sort) => {
        const query = filterQuery(filter, sort);
        expect(await listIds(query), `GET ?${decodeURIComponent(query)}`).toEqual(oracle(records, filter, sort));
      }),
      { numRuns: 250 },
    );
  });

  it('answers a filter nested exactly 10 levels deep and rejects one level more with 400 invalid_query', async () => {
    await fc.assert(
      fc.asyncProperty(filterArbitrary(records, foreignIds), async (filter) => {
        // Each `not` adds one bracket level; an even number of them changes nothing.
        let wrapped = filter;
        let negations = 0;
        while (bracketDepth(toQueryValue(wrapped)) < 10) {
          wrapped = { entries: [{ key: 'not', child: wrapped }] };
          negations += 1;
        }
        expect(bracketDepth(toQueryValue(wrapped))).toBe(10);
        const expected = oracle(records, negations % 2 === 0 ? filter : { entries: [{ key: 'not', child: filter }] }, []);
        expect(await listIds(filterQuery(wrapped))).toEqual(expected);

        const tooDeep = filterQuery({ entries: [{ key: 'not', child: wrapped }] });
        const { status, body } = await list(tooDeep);
        expect(status, `GET ?${decodeURIComponent(tooDeep)}`).toBe(400);
        expect((body as ErrorBody).errors[0]?.code).toBe('invalid_query');
      }),
      { numRuns: 15 },
    );
  });

  it('serves any page of a filtered, sorted list as the matching slice of the model, with total and links', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(filterArbitrary(records, foreignIds), { nil: null }),
        sortArbitrary,
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 0, max: 45 }),
        async (filter, sort, limit, offset) => {
          const query = qs.stringify(
            {
              ...(filter ? { filter: toQueryValue(filter) } : {}),
              ...(sort.length > 0 ? { sort: sortParameter(sort) } : {}),
              page: { limit: String(limit), offset: String(offset), count: 'true' },
            },
            { arrayFormat: 'indices' },
          );
          const expected = oracle(records, filter, sort);
          const { status, body } = await list(query);
          expect(status, `GET ?${decodeURIComponent(query)}`).toBe(200);
          const page = body as ListBody;
          expect(page.data.map((d) => d.id)).toEqual(expected.slice(offset, offset + limit));
          expect(page.meta.page).toEqual({ limit, offset, total: expected.length });
          expect(page.links.next === null).toBe(offset + limit >= expected.length);
          expect(page.links.prev === null).toBe(offset === 0);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('treats a value containing "[]" as a plain value, not as an empty-bracket parameter name', async () => {
    const { id } = await createEndpoint(agent, agent.liveKey, { url: 'https://d.example/lista[]' });
    try {
      const query = qs.stringify({ filter: { url: { contains: 'lista[]' } } }, { arrayFormat: 'indices' });
      const { status, body } = await list(query);
      expect(status, `GET ?${decodeURIComponent(query)} → ${JSON.stringify(body)}`).toBe(200);
      expect((body as ListBody).data.map((d) => d.id)).toEqual([id]);
    } finally {
      await agent.fetch(`/api/v1/webhook-endpoints/${id}`, { method: 'DELETE', headers: jsonApiHeaders(agent.liveKey) });
    }
  });

  it.each([
    ['an unknown attribute', { secret: 'x' }, 'filter[secret]'],
    ['contains on a boolean', { active: { contains: 'true' } }, 'filter[active][contains]'],
    ['greater_than on the id', { id: { greater_than: 'a' } }, 'filter[id][greater_than]'],
    ['an unknown operator', { url: { like: 'a' } }, 'filter[url][like]'],
    ['a boolean that is not true or false', { active: '1' }, 'filter[active]'],
    ['a datetime that is not ISO 8601', { last_delivered_at: { less_than: 'ayer' } }, 'filter[last_delivered_at][less_than]'],
    ['an `in` given as a single value', { url: { in: 'https://a.example/x' } }, 'filter[url][in]'],
    ['an `or` given as an object', { or: { url: 'x' } }, 'filter[or]'],
    ['a nested invalid leaf', { or: [{ url: 'x' }, { not: { nope: 'x' } }] }, 'filter[or][1][not][nope]'],
  ])('rejects %s with 400 invalid_filter naming the parameter', async (_name, filter, parameter) => {
    const { status, body } = await list(qs.stringify({ filter }, { arrayFormat: 'indices' }));
    expect(status).toBe(400);
    expect((body as ErrorBody).errors[0]).toMatchObject({ status: '400', code: 'invalid_filter', source: { parameter } });
  });
});
