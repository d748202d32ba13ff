import type { RawBuilder } from 'kysely';
import type { z } from 'zod';
import type { Caller, Scope } from '../../auth/index.js';

/**
 * How an attribute can be filtered: the kind decides which operators apply and
 * how a query-string value is read (CONTRACT §7).
 */
export type FilterKind = 'string' | 'uuid' | 'boolean' | 'datetime';

export interface AttributeDef {
  /** Response schema of the attribute (feeds the OpenAPI document). */
  schema: z.ZodType;
  /** Column or SQL expression (`w.url`); absent for attributes that can't be filtered or sorted. */
  column?: string;
  filter?: FilterKind;
  sortable?: boolean;
}

export interface WriteSpec<Input> {
  /** Body attributes: wrong types and unknown attributes are 400 (schema). */
  schema: z.ZodType<Input>;
  /** Rules beyond types: each problem is a 422 pointing at its attribute. */
  validate?(input: Input): AttributeProblem[];
}

export interface AttributeProblem {
  /** Path under `/data/attributes`, e.g. `url` or `events/2`. */
  path: string;
  detail: string;
  detailEn?: string;
}

/**
 * A JSON:API resource as data: its type, attributes, where its rows come from and
 * which writes it accepts. The generic handlers in `handlers.ts` serve list, get,
 * create, update and delete for any definition; `openapi.ts` documents it.
 */
export interface ResourceDef<Create = unknown, Update = unknown> {
  type: string;
  /** Collection path, e.g. `/api/v1/webhook-endpoints`. */
  path: string;
  description: string;
  /** Family B product scope required; undefined = any scope. */
  scope?: Scope;
  attributes: Record<string, AttributeDef>;
  /** `FROM …` fragment (with joins). */
  from: RawBuilder<unknown>;
  /** Id column, e.g. `w.id`; always filterable and sortable as `id`. */
  idColumn: string;
  idFilter: FilterKind;
  /** Columns to select; the row is then given to `toAttributes`. */
  select: RawBuilder<unknown>;
  /** Rows the caller may see, e.g. its book and environment. */
  visibleTo(caller: Caller): RawBuilder<unknown>;
  toAttributes(row: Record<string, unknown>): Record<string, unknown>;
  create?: WriteSpec<Create> & { run(caller: Caller, input: Create): string };
  update?: WriteSpec<Update> & { run(caller: Caller, id: string, input: Update): boolean };
  remove?(caller: Caller, id: string): boolean;
}

// A definition's write types are erased once it joins the registry.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyResourceDef = ResourceDef<any, any>;

/** Identity helper that keeps the write types while checking the shape. */
export function defineResource<C, U>(def: ResourceDef<C, U>): ResourceDef<C, U> {
  return def;
}
