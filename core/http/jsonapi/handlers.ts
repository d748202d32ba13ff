import { sql, type RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import type { Store } from '../../db/index.js';
import { SelloError } from '../../errors/index.js';
import { parseJson, readBody } from '../body.js';
import type { AppContext, Route } from '../context.js';
import { requestOrigin } from '../middleware/host-check.js';
import { JSONAPI_MEDIA_TYPE, JsonApiErrors } from '../envelopes.js';
import { compileFilter } from './filter.js';
import { assertJsonApiAcceptable, assertJsonApiContentType } from './media-type.js';
import { listLinker, parseFields, parseListQuery, parseNestedQuery } from './query.js';
import type { AnyResourceDef, AttributeProblem, WriteSpec } from './resource.js';
import { readCacheKey, type ResponseCache } from './response-cache.js';

export const JSONAPI_VERSION = { version: '1.1' } as const;
const BODY_LIMIT = 1024 * 1024;

/** Links point at the origin of the checked Host header (middleware/host-check.ts), never at the raw one. */
function baseUrl(ctx: AppContext): string {
  return requestOrigin(ctx);
}

function send(ctx: AppContext, status: number, body: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  sendText(ctx, status, bytes);
  return bytes;
}

function sendText(ctx: AppContext, status: number, text: string | Buffer): void {
  ctx.status = status;
  ctx.type = JSONAPI_MEDIA_TYPE;
  ctx.body = text;
}


function callerOf(ctx: AppContext): Caller {
  const caller = ctx.state.caller;
  if (!caller) throw new SelloError('unauthorized');
  return caller;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bodyError(pointer: string, detail: string, detailEn: string, code: 'invalid_body' | 'type_conflict' | 'client_id_not_supported' = 'invalid_body'): SelloError {
  return new SelloError(code, { pointer, detail, detailEn });
}

/** Reads and checks a JSON:API write document; returns its attributes, validated. */
async function readResourceDocument<T>(
  ctx: AppContext,
  resource: AnyResourceDef,
  spec: WriteSpec<T>,
  idFromPath?: string,
): Promise<T> {
  assertJsonApiContentType(ctx.get('Content-Type'));
  const document = parseJson(await readBody(ctx.req, BODY_LIMIT));
  if (!isPlainObject(document)) throw bodyError('', 'El cuerpo debe ser un objeto JSON:API con "data".', 'The body must be a JSON:API object with "data".');
  for (const key of Object.keys(document)) {
    if (!['data', 'meta', 'jsonapi'].includes(key)) throw bodyError(`/${key}`, `Miembro no admitido en el documento: ${key}.`, `Member not accepted in the document: ${key}.`);
  }
  const data = document.data;
  if (!isPlainObject(data)) throw bodyError('/data', '"data" debe ser un objeto de recurso.', '"data" must be a resource object.');
  for (const key of Object.keys(data)) {
    if (!['type', 'id', 'attributes', 'meta'].includes(key)) throw bodyError(`/data/${key}`, `Miembro no admitido: data.${key}.`, `Member not accepted: data.${key}.`);
  }
  if (typeof data.type !== 'string') throw bodyError('/data/type', 'Falta data.type.', 'data.type is missing.');
  if (data.type !== resource.type) {
    throw bodyError('/data/type', `data.type es "${data.type}", pero esta colección es de "${resource.type}".`, `data.type is "${data.type}" but this collection holds "${resource.type}".`, 'type_conflict');
  }
  if (idFromPath === undefined) {
    if (data.id !== undefined) throw bodyError('/data/id', 'No se admiten ids generados por el cliente; omita data.id.', 'Client-generated ids are not supported; leave out data.id.', 'client_id_not_supported');
  } else {
    if (typeof data.id !== 'string') throw bodyError('/data/id', 'Falta data.id.', 'data.id is missing.');
    if (data.id !== idFromPath) throw bodyError('/data/id', 'data.id no coincide con el id de la URL.', 'data.id does not match the id in the URL.', 'type_conflict');
  }
  const attributes = data.attributes ?? {};
  if (!isPlainObject(attributes)) throw bodyError('/data/attributes', 'data.attributes debe ser un objeto.', 'data.attributes must be an object.');

  const parsed = (spec.schema as z.ZodType<T>).safeParse(attributes);
  if (!parsed.success) {
    throw new JsonApiErrors(
      parsed.error.issues.flatMap((issue) => {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
        return keys.map((key) => {
          const path = [...issue.path.map(String), ...(key === undefined ? [] : [key])];
          const pointer = `/data/attributes${path.map((p) => `/${p}`).join('')}`;
          const detail =
            issue.code === 'unrecognized_keys'
              ? `Atributo no admitido: ${path.join('.')}.`
              : `${path.join('.') || 'attributes'}: ${issue.message}`;
          return new SelloError('invalid_body', { pointer, detail });
        });
      }),
    );
  }
  const problems: AttributeProblem[] = spec.validate?.(parsed.data) ?? [];
  if (problems.length > 0) {
    throw new JsonApiErrors(
      problems.map((p) =>
        new SelloError('invalid_attribute', { pointer: `/data/attributes/${p.path}`, detail: p.detail, ...(p.detailEn ? { detailEn: p.detailEn } : {}) }),
      ),
    );
  }
  return parsed.data;
}

/**
 * The five routes of a resource (list, create, get, update, delete), each only if
 * the definition allows it. Everything a JSON:API collection does lives here once.
 */
export function jsonApiRoutes(resource: AnyResourceDef, store: Store, cache: ResponseCache): Route[] {
  const itemPath = `${resource.path}/:id`;

  /** Serves a read from the cache while the store is unchanged, else computes and keeps it. */
  const cachedRead = (ctx: AppContext, compute: (caller: Caller) => unknown): void => {
    const caller = callerOf(ctx);
    const key = readCacheKey(caller, baseUrl(ctx), ctx.url);
    // Read with the key check, in this same synchronous step: nothing has written since.
    const marker = ctx.state.storeMarker ?? store.changeMarker();
    const hit = cache.get(key, marker);
    if (hit !== undefined) {
      sendText(ctx, 200, hit.body);
      return;
    }
    cache.set(key, marker, { body: send(ctx, 200, compute(caller)), scope: resource.scope });
  };

  const compiled = (raw: RawBuilder<unknown>) => ({ compile: () => raw.compile(store.db) });

  const toResourceObject = (ctx: AppContext, row: Record<string, unknown>, fields?: string[]) => {
    const all = resource.toAttributes(row);
    const attributes = fields ? Object.fromEntries(fields.map((f) => [f, all[f]])) : all;
    const id = String(row.id);
    return { type: resource.type, id, attributes, links: { self: `${baseUrl(ctx)}${resource.path}/${encodeURIComponent(id)}` } };
  };

  const findRow = (caller: Caller, id: string): Record<string, unknown> | undefined =>
    store.first<Record<string, unknown>>(
      compiled(sql`select ${resource.select} from ${resource.from} where ${resource.visibleTo(caller)} and ${sql.ref(resource.idColumn)} = ${id}`),
    );

  const notFound = (id: string) =>
    new SelloError('resource_not_found', {
      detail: `No existe ${resource.type} con id ${id}.`,
      detailEn: `There is no ${resource.type} with id ${id}.`,
    });

  const base = { surface: 'jsonapi' as const, auth: 'family-b' as const, ...(resource.scope ? { scope: resource.scope } : {}) };
  const routes: Route[] = [];

  routes.push({
    ...base,
    method: 'GET',
    path: resource.path,
    handler(ctx) {
      assertJsonApiAcceptable(ctx.get('Accept'));
      cachedRead(ctx, (caller) => {
      const query = parseListQuery(ctx.querystring, resource);
      const where = sql`${resource.visibleTo(caller)} and ${query.filter ? compileFilter(query.filter, resource) : sql`1`}`;
      const order = [
        ...query.sort.map(({ attribute, descending }) => {
          const column = attribute === 'id' ? resource.idColumn : resource.attributes[attribute]!.column!;
          return sql`${sql.ref(column)} ${sql.raw(descending ? 'desc' : 'asc')}`;
        }),
        sql`${sql.ref(resource.idColumn)} asc`,
      ];
      const rows = store.all<Record<string, unknown>>(
        compiled(
          // Validated integers, inlined: a bound LIMIT makes SQLite walk the index 4× slower here.
          sql`select ${resource.select} from ${resource.from} where ${where} order by ${sql.join(order)} limit ${sql.lit(query.limit)} offset ${sql.lit(query.offset)}`,
        ),
      );
      const link = listLinker(`${baseUrl(ctx)}${resource.path}`, query);
      const links: Record<string, string | null> = {
        self: link(query.offset),
        first: link(0),
        prev: query.offset > 0 ? link(Math.max(0, query.offset - query.limit)) : null,
        next: null,
      };
      const meta: { page: Record<string, number | boolean> } = { page: { limit: query.limit, offset: query.offset } };
      if (query.limitClamped) meta.page.limit_clamped = true;
      if (query.count) {
        const total = Number(
          store.first<{ total: number }>(compiled(sql`select count(*) as total from ${resource.from} where ${where}`))?.total ?? 0,
        );
        meta.page.total = total;
        links.next = query.offset + query.limit < total ? link(query.offset + query.limit) : null;
        links.last = link(total === 0 ? 0 : Math.floor((total - 1) / query.limit) * query.limit);
      } else if (rows.length === query.limit) {
        // Without a count, a full page may have a next one; the client finds out.
        links.next = link(query.offset + query.limit);
      }
      return { jsonapi: JSONAPI_VERSION, data: rows.map((r) => toResourceObject(ctx, r, query.fields)), links, meta };
      });
    },
  });

  routes.push({
    ...base,
    method: 'GET',
    path: itemPath,
    handler(ctx) {
      assertJsonApiAcceptable(ctx.get('Accept'));
      const query = parseNestedQuery(ctx.querystring);
      for (const key of Object.keys(query)) {
        if (key !== 'fields') throw new SelloError('invalid_query', { parameter: key, detail: `Parámetro de consulta no admitido aquí: ${key}.`, detailEn: `Query parameter not supported here: ${key}.` });
      }
      const fields = parseFields(query.fields, resource);
      const id = ctx.state.params.id!;
      cachedRead(ctx, (caller) => {
        const row = findRow(caller, id);
        if (!row) throw notFound(id);
        const data = toResourceObject(ctx, row, fields);
        return { jsonapi: JSONAPI_VERSION, data, links: { self: data.links.self } };
      });
    },
  });

  const create = resource.create;
  if (create) {
    routes.push({
      ...base,
      method: 'POST',
      path: resource.path,
      async handler(ctx) {
        assertJsonApiAcceptable(ctx.get('Accept'));
        const caller = callerOf(ctx);
        const input = await readResourceDocument(ctx, resource, create);
        const id = create.run(caller, input);
        const row = findRow(caller, id);
        if (!row) throw new Error(`created ${resource.type} ${id} is not visible to its creator`);
        const data = toResourceObject(ctx, row);
        ctx.set('Location', data.links.self);
        send(ctx, 201, { jsonapi: JSONAPI_VERSION, data, links: { self: data.links.self } });
      },
    });
  }

  const update = resource.update;
  if (update) {
    routes.push({
      ...base,
      method: 'PATCH',
      path: itemPath,
      async handler(ctx) {
        assertJsonApiAcceptable(ctx.get('Accept'));
        const caller = callerOf(ctx);
        const id = ctx.state.params.id!;
        if (!findRow(caller, id)) throw notFound(id);
        const input = await readResourceDocument(ctx, resource, update, id);
        if (!update.run(caller, id, input)) throw notFound(id);
        const data = toResourceObject(ctx, findRow(caller, id)!);
        send(ctx, 200, { jsonapi: JSONAPI_VERSION, data, links: { self: data.links.self } });
      },
    });
  }

  const remove = resource.remove;
  if (remove) {
    routes.push({
      ...base,
      method: 'DELETE',
      path: itemPath,
      handler(ctx) {
        const caller = callerOf(ctx);
        const id = ctx.state.params.id!;
        if (!remove(caller, id)) throw notFound(id);
        ctx.status = 204;
      },
    });
  }

  return routes;
}
