import { sql } from 'kysely';
import { z } from 'zod';
import { defineResource } from '../jsonapi/resource.js';

const country = z.enum(['EC', 'PE']);

/** `GET /api/v1/identification-types` (CONTRACT §8): read-only, the same for every book. */
export const identificationTypeResource = defineResource({
  type: 'identification_type',
  path: '/api/v1/identification-types',
  description: 'Identification types of Ecuador and Peru, as the interface lists them.',
  attributes: {
    code: { schema: z.string(), column: 'code', filter: 'string', sortable: true },
    authority_code: { schema: z.string(), column: 'authority_code', filter: 'string', sortable: true },
    country: { schema: country, column: 'country', filter: 'string', sortable: true },
    name: { schema: z.string(), column: 'name', filter: 'string', sortable: true },
  },
  from: sql`identification_types`,
  idColumn: 'code',
  idFilter: 'string',
  select: sql`code as id, code, authority_code, country, name`,
  visibleTo: () => sql`1`,
  toAttributes: (row) => ({ code: row.code, authority_code: row.authority_code, country: row.country, name: row.name }),
});

/** `GET /api/v1/tax-types` (CONTRACT §8). */
export const taxTypeResource = defineResource({
  type: 'tax_type',
  path: '/api/v1/tax-types',
  description: 'Tax types of Ecuador and Peru, as the interface lists them.',
  attributes: {
    code: { schema: z.string(), column: 'code', filter: 'string', sortable: true },
    authority_code: { schema: z.string(), column: 'authority_code', filter: 'string', sortable: true },
    country: { schema: country, column: 'country', filter: 'string', sortable: true },
    group: { schema: z.string(), column: 'group', filter: 'string', sortable: true },
    name: { schema: z.string(), column: 'name', filter: 'string', sortable: true },
  },
  from: sql`tax_types`,
  idColumn: 'code',
  idFilter: 'string',
  select: sql`code as id, code, authority_code, country, "group", name`,
  visibleTo: () => sql`1`,
  toAttributes: (row) => ({
    code: row.code,
    authority_code: row.authority_code,
    country: row.country,
    group: row.group,
    name: row.name,
  }),
});
