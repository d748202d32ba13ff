import qs from 'qs';
import { SelloError } from '../../errors/index.js';
import { parseFilter, type FilterNode } from './filter.js';
import type { AnyResourceDef } from './resource.js';

export const DEFAULT_PAGE_LIMIT = 25;
export const MAX_PAGE_LIMIT = 250;
/** Bracket segments allowed in one parameter name; deeper is a 400 (CONTRACT §7). */
export const MAX_QUERY_DEPTH = 10;

export interface ListQuery {
  filter?: FilterNode;
  /** Raw `filter` object, kept to rebuild pagination links. */
  rawFilter?: unknown;
  sort: Array<{ attribute: string; descending: boolean }>;
  rawSort?: string;
  limit: number;
  /** The limit asked for was above the maximum and was lowered. */
  limitClamped: boolean;
  offset: number;
  count: boolean;
  fields?: string[];
  rawFields?: unknown;
}

/**
 * Parses a query string the way JSON:API clients write it: nested brackets,
 * indexed arrays only, at most `MAX_QUERY_DEPTH` levels.
 */
export function parseNestedQuery(search: string): Record<string, unknown> {
  const raw = search.startsWith('?') ? search.slice(1) : search;
  if (raw === '') return {};
  // Only parameter names matter here: a value may well contain "[]".
  const names = raw.split('&').map((pair) => pair.split('=', 1)[0]!);
  if (names.some((name) => /\[\]|%5B%5D/i.test(name))) {
    throw new SelloError('invalid_query', {
      detail: 'Use listas indexadas (filter[in][0]=a), no corchetes vacíos.',
      detailEn: 'Use indexed lists (filter[in][0]=a), not empty brackets.',
    });
  }
  try {
    return qs.parse(raw, {
      depth: MAX_QUERY_DEPTH,
      strictDepth: true,
      arrayLimit: 100,
      parameterLimit: 1000,
      allowDots: false,
      allowPrototypes: false,
      duplicates: 'last',
    }) as Record<string, unknown>;
  } catch (err) {
    throw new SelloError('invalid_query', {
      detail: `La consulta anida más de ${MAX_QUERY_DEPTH} niveles de corchetes.`,
      detailEn: `The query nests more than ${MAX_QUERY_DEPTH} levels of brackets.`,
      cause: err,
    });
  }
}

const known = new Set(['filter', 'sort', 'page', 'fields']);

export function parseListQuery(search: string, resource: AnyResourceDef): ListQuery {
  const query = parseNestedQuery(search);
  for (const key of Object.keys(query)) {
    if (!known.has(key)) {
      throw new SelloError('invalid_query', {
        parameter: key,
        detail: `Parámetro de consulta desconocido: ${key}. Se admiten filter, sort, page y fields.`,
        detailEn: `Unknown query parameter: ${key}. Supported: filter, sort, page and fields.`,
      });
    }
  }
  const page = parsePage(query.page);
  const result: ListQuery = { sort: parseSort(query.sort, resource), ...page };
  if (query.sort !== undefined) result.rawSort = query.sort as string;
  if (query.filter !== undefined) {
    result.filter = parseFilter(query.filter, resource);
    result.rawFilter = query.filter;
  }
  const fields = parseFields(query.fields, resource);
  if (fields) {
    result.fields = fields;
    result.rawFields = query.fields;
  }
  return result;
}

/** Only `fields[TYPE]=a,b`; used by list and single-resource reads alike. */
export function parseFields(raw: unknown, resource: AnyResourceDef): string[] | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw fieldError('fields', 'Use fields[TIPO]=atributo1,atributo2.', 'Use fields[TYPE]=attribute1,attribute2.');
  }
  let selected: string[] | undefined;
  for (const [type, value] of Object.entries(raw)) {
    const parameter = `fields[${type}]`;
    if (type !== resource.type) {
      throw fieldError(parameter, `Tipo desconocido en ${parameter}; este recurso es ${resource.type}.`, `Unknown type in ${parameter}; this resource is ${resource.type}.`);
    }
    if (typeof value !== 'string') throw fieldError(parameter, `${parameter} debe ser una lista separada por comas.`, `${parameter} must be a comma-separated list.`);
    const names = value === '' ? [] : value.split(',');
    for (const name of names) {
      if (!Object.hasOwn(resource.attributes, name)) {
        const list = Object.keys(resource.attributes).join(', ');
        throw fieldError(parameter, `Atributo desconocido "${name}" en ${parameter}. Atributos: ${list}.`, `Unknown attribute "${name}" in ${parameter}. Attributes: ${list}.`);
      }
    }
    selected = names;
  }
  return selected;
}

function fieldError(parameter: string, detail: string, detailEn: string): SelloError {
  return new SelloError('invalid_field', { parameter, detail, detailEn });
}

function parseSort(raw: unknown, resource: AnyResourceDef): ListQuery['sort'] {
  if (raw === undefined) return [];
  if (typeof raw !== 'string' || raw === '') {
    throw new SelloError('invalid_sort', { parameter: 'sort', detail: 'sort debe ser una lista de atributos separada por comas.', detailEn: 'sort must be a comma-separated list of attributes.' });
  }
  return raw.split(',').map((part) => {
    const descending = part.startsWith('-');
    const attribute = descending ? part.slice(1) : part;
    const sortable = attribute === 'id' || resource.attributes[attribute]?.sortable === true;
    if (!sortable) {
      const list = ['id', ...Object.entries(resource.attributes).filter(([, d]) => d.sortable).map(([n]) => n)].join(', ');
      throw new SelloError('invalid_sort', {
        parameter: 'sort',
        detail: `No se puede ordenar por "${attribute}". Atributos ordenables: ${list}.`,
        detailEn: `Cannot sort by "${attribute}". Sortable attributes: ${list}.`,
      });
    }
    return { attribute, descending };
  });
}

function parsePage(raw: unknown): Pick<ListQuery, 'limit' | 'limitClamped' | 'offset' | 'count'> {
  const page = raw === undefined ? {} : raw;
  if (typeof page !== 'object' || page === null || Array.isArray(page)) {
    throw pageError('page', 'Use page[limit], page[offset] y page[count].', 'Use page[limit], page[offset] and page[count].');
  }
  const p = page as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!['limit', 'offset', 'count'].includes(key)) {
      throw pageError(`page[${key}]`, `Parámetro de paginación desconocido: page[${key}].`, `Unknown pagination parameter: page[${key}].`);
    }
  }
  const integer = (name: string, min: number): number | undefined => {
    const value = p[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < min) {
      throw pageError(`page[${name}]`, `page[${name}] debe ser un entero mayor o igual a ${min}.`, `page[${name}] must be an integer of at least ${min}.`);
    }
    return Number(value);
  };
  const asked = integer('limit', 1) ?? DEFAULT_PAGE_LIMIT;
  const offset = integer('offset', 0) ?? 0;
  let count = false;
  if (p.count !== undefined) {
    if (p.count !== 'true' && p.count !== 'false') throw pageError('page[count]', 'page[count] debe ser true o false.', 'page[count] must be true or false.');
    count = p.count === 'true';
  }
  return { limit: Math.min(asked, MAX_PAGE_LIMIT), limitClamped: asked > MAX_PAGE_LIMIT, offset, count };
}

function pageError(parameter: string, detail: string, detailEn: string): SelloError {
  return new SelloError('invalid_pagination', { parameter, detail, detailEn });
}

/**
 * Builds the links of a list: the same filter, sort and fields, another page.
 * Brackets are percent-encoded. The fixed part is encoded once per request.
 */
export function listLinker(base: string, query: ListQuery): (offset: number) => string {
  const params: Record<string, unknown> = {};
  if (query.rawFilter !== undefined) params.filter = query.rawFilter;
  if (query.rawSort !== undefined) params.sort = query.rawSort;
  if (query.rawFields !== undefined) params.fields = query.rawFields;
  const fixed = qs.stringify(params, { arrayFormat: 'indices' });
  const prefix = `${base}?${fixed ? `${fixed}&` : ''}page%5Blimit%5D=${query.limit}&page%5Boffset%5D=`;
  const suffix = query.count ? '&page%5Bcount%5D=true' : '';
  return (offset) => `${prefix}${offset}${suffix}`;
}
