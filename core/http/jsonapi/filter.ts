import { sql, type RawBuilder } from 'kysely';
import { SelloError } from '../../errors/index.js';
import type { AnyResourceDef, FilterKind } from './resource.js';

/**
 * Filters as AshJsonApi writes them (CONTRACT §7): `filter[url][contains]=x`,
 * `filter[active]=true`, `filter[or][0][…]`, `filter[and][i]`, `filter[not]`.
 * Parsed into a tree, then compiled to SQL.
 */
export type FilterNode =
  | { kind: 'and'; children: FilterNode[] }
  | { kind: 'or'; children: FilterNode[] }
  | { kind: 'not'; child: FilterNode }
  | { kind: 'compare'; attribute: string; op: Operator; value: FilterValue };

export type FilterValue = string | number | boolean | null | Array<string | number>;

export const operators = [
  'eq',
  'not_eq',
  'in',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'is_nil',
  'contains',
] as const;
export type Operator = (typeof operators)[number];

const operatorsByKind: Record<FilterKind, readonly Operator[]> = {
  string: operators,
  uuid: ['eq', 'not_eq', 'in', 'is_nil'],
  boolean: ['eq', 'not_eq', 'in', 'is_nil'],
  datetime: ['eq', 'not_eq', 'in', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'is_nil'],
};

function invalid(parameter: string, detail: string, detailEn: string): SelloError {
  return new SelloError('invalid_filter', { parameter, detail, detailEn });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Filterable attributes of a resource, with `id`. */
export function filterKinds(resource: AnyResourceDef): Map<string, { kind: FilterKind; column: string }> {
  const kinds = new Map<string, { kind: FilterKind; column: string }>([['id', { kind: resource.idFilter, column: resource.idColumn }]]);
  for (const [name, def] of Object.entries(resource.attributes)) {
    if (def.filter && def.column) kinds.set(name, { kind: def.filter, column: def.column });
  }
  return kinds;
}

/** Turns the `filter` object that `qs` parsed into a tree, or a 400 `invalid_filter`. */
export function parseFilter(raw: unknown, resource: AnyResourceDef, parameter = 'filter'): FilterNode {
  const kinds = filterKinds(resource);

  const parseObject = (value: unknown, at: string): FilterNode => {
    if (!isPlainObject(value)) {
      throw invalid(at, `${at} debe ser un objeto de filtros.`, `${at} must be an object of filters.`);
    }
    const children: FilterNode[] = [];
    for (const [key, inner] of Object.entries(value)) {
      const here = `${at}[${key}]`;
      if (key === 'and' || key === 'or') {
        const list = Array.isArray(inner) ? inner : undefined;
        if (!list || list.length === 0) {
          throw invalid(here, `${here} debe ser una lista indexada de filtros (${here}[0][…]).`, `${here} must be an indexed list of filters.`);
        }
        children.push({ kind: key, children: list.map((item, i) => parseObject(item, `${here}[${i}]`)) });
      } else if (key === 'not') {
        children.push({ kind: 'not', child: parseObject(inner, here) });
      } else {
        const attr = kinds.get(key);
        if (!attr) {
          const known = [...kinds.keys()].join(', ');
          throw invalid(here, `No se puede filtrar por "${key}". Atributos filtrables: ${known}.`, `Cannot filter by "${key}". Filterable attributes: ${known}.`);
        }
        children.push(...parseComparisons(key, attr.kind, inner, here));
      }
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  };

  return parseObject(raw, parameter);
}

function parseComparisons(attribute: string, kind: FilterKind, raw: unknown, at: string): FilterNode[] {
  if (typeof raw === 'string') return [{ kind: 'compare', attribute, op: 'eq', value: readValue(kind, raw, at) }];
  if (!isPlainObject(raw)) throw invalid(at, `${at} debe ser un valor o un objeto de operadores.`, `${at} must be a value or an object of operators.`);
  const allowed = operatorsByKind[kind];
  return Object.entries(raw).map(([op, value]): FilterNode => {
    const here = `${at}[${op}]`;
    if (!(allowed as readonly string[]).includes(op)) {
      throw invalid(here, `Operador "${op}" no válido para ${attribute}. Operadores: ${allowed.join(', ')}.`, `Operator "${op}" is not valid for ${attribute}. Operators: ${allowed.join(', ')}.`);
    }
    const operator = op as Operator;
    if (operator === 'in') {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        throw invalid(here, `${here} debe ser una lista indexada (${here}[0]=…).`, `${here} must be an indexed list.`);
      }
      return { kind: 'compare', attribute, op: operator, value: (value as string[]).map((v, i) => readScalar(kind, v, `${here}[${i}]`)) };
    }
    if (typeof value !== 'string') throw invalid(here, `${here} debe ser un único valor.`, `${here} must be a single value.`);
    if (operator === 'is_nil') return { kind: 'compare', attribute, op: operator, value: readBoolean(value, here) };
    return { kind: 'compare', attribute, op: operator, value: readValue(kind, value, here) };
  });
}

function readBoolean(raw: string, at: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw invalid(at, `${at} debe ser true o false.`, `${at} must be true or false.`);
}

function readScalar(kind: FilterKind, raw: string, at: string): string | number {
  if (kind === 'boolean') return readBoolean(raw, at) ? 1 : 0;
  if (kind === 'datetime') {
    const t = Date.parse(raw);
    if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(t)) {
      throw invalid(at, `${at} debe ser una fecha ISO 8601 (por ejemplo 2026-01-31T12:00:00Z).`, `${at} must be an ISO 8601 date.`);
    }
    return new Date(t).toISOString();
  }
  return raw;
}

function readValue(kind: FilterKind, raw: string, at: string): FilterValue {
  return readScalar(kind, raw, at);
}

const sqlOperator: Partial<Record<Operator, string>> = {
  eq: '=',
  greater_than: '>',
  greater_than_or_equal: '>=',
  less_than: '<',
  less_than_or_equal: '<=',
};

/**
 * Compiles a tree to a SQL condition. Every comparison is two-valued (a NULL
 * column matches no comparison but `is_nil`, and does match `not_eq`), so `not`
 * is plain negation.
 *
 * @example
 *   filter[or][0][url][contains]=a&filter[or][1][active]=false
 *   → ((coalesce(instr("w"."url", ?) > 0, 0)) or (coalesce("w"."active" = ?, 0)))
 */
export function compileFilter(node: FilterNode, resource: AnyResourceDef): RawBuilder<unknown> {
  const kinds = filterKinds(resource);
  const compile = (n: FilterNode): RawBuilder<unknown> => {
    switch (n.kind) {
      case 'and':
        return n.children.length === 0 ? sql`1` : sql`(${sql.join(n.children.map(compile), sql` and `)})`;
      case 'or':
        return n.children.length === 0 ? sql`0` : sql`(${sql.join(n.children.map(compile), sql` or `)})`;
      case 'not':
        return sql`(not ${compile(n.child)})`;
      case 'compare': {
        const column = sql.ref(kinds.get(n.attribute)!.column);
        const { op, value } = n;
        if (op === 'is_nil') return value ? sql`(${column} is null)` : sql`(${column} is not null)`;
        if (op === 'not_eq') return sql`(${column} is not ${value})`;
        if (op === 'contains') return sql`coalesce(instr(${column}, ${value}) > 0, 0)`;
        if (op === 'in') {
          const list = value as Array<string | number>;
          return list.length === 0 ? sql`0` : sql`coalesce(${column} in (${sql.join(list)}), 0)`;
        }
        return sql`coalesce(${column} ${sql.raw(sqlOperator[op]!)} ${value}, 0)`;
      }
    }
  };
  return compile(node);
}
