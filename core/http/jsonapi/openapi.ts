import { z } from 'zod';
import { MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT } from './query.js';
import { operators } from './filter.js';
import type { AnyResourceDef } from './resource.js';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const jsonApiContent = (schema: Json): Json => ({ 'application/vnd.api+json': { schema } });
const jsonContent = (schema: Json): Json => ({ 'application/json': { schema } });

const jsonApiError = (description: string): Json => ({ description, content: jsonApiContent(ref('jsonapi_errors')) });
const fiscalError = (description: string): Json => ({ description, content: jsonContent(ref('fiscal_error')) });

/** Responses every Family B operation can give before its handler runs. */
const authResponses: Json = {
  '401': fiscalError('Key missing, invalid or revoked.'),
  '403': fiscalError('Key without the `accounting_api` capability or the scope of this resource.'),
  '429': fiscalError('More than the allowed requests per minute; see `Retry-After`.'),
};

const sharedSchemas: Json = {
  jsonapi_object: {
    type: 'object',
    properties: { version: { const: '1.1' } },
    required: ['version'],
  },
  jsonapi_errors: {
    type: 'object',
    required: ['errors'],
    properties: {
      jsonapi: ref('jsonapi_object'),
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['status', 'code', 'title', 'detail'],
          properties: {
            status: { type: 'string' },
            code: { type: 'string' },
            title: { type: 'string' },
            detail: { type: 'string' },
            source: {
              type: 'object',
              properties: { pointer: { type: 'string' }, parameter: { type: 'string' } },
            },
            meta: { type: 'object' },
          },
        },
      },
    },
  },
  fiscal_error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' }, meta: { type: 'object' } },
      },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
  },
  links: {
    type: 'object',
    additionalProperties: { type: ['string', 'null'] },
  },
};

function resourceSchemas(resource: AnyResourceDef): Json {
  const t = resource.type;
  const attributes: Json = {
    type: 'object',
    additionalProperties: false,
    // No attribute is required: a sparse fieldset (`fields[…]`) may leave any out.
    properties: Object.fromEntries(Object.entries(resource.attributes).map(([name, def]) => [name, jsonSchema(def.schema, 'output')])),
  };
  const schemas: Json = {
    [`${t}_attributes`]: attributes,
    [t]: {
      type: 'object',
      required: ['type', 'id', 'attributes'],
      properties: {
        type: { const: t },
        id: { type: 'string' },
        attributes: ref(`${t}_attributes`),
        links: ref('links'),
      },
    },
    [`${t}_document`]: {
      type: 'object',
      required: ['data'],
      properties: { jsonapi: ref('jsonapi_object'), data: ref(t), links: ref('links') },
    },
    [`${t}_list`]: {
      type: 'object',
      required: ['data', 'links'],
      properties: {
        jsonapi: ref('jsonapi_object'),
        data: { type: 'array', items: ref(t) },
        links: ref('links'),
        meta: {
          type: 'object',
          properties: {
            page: {
              type: 'object',
              properties: {
                limit: { type: 'integer' },
                offset: { type: 'integer' },
                total: { type: 'integer' },
                limit_clamped: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
  };
  const write = (name: string, spec: { schema: z.ZodType }, withId: boolean): void => {
    schemas[name] = {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: withId ? ['type', 'id'] : ['type'],
          additionalProperties: false,
          properties: {
            type: { const: t },
            ...(withId ? { id: { type: 'string' } } : {}),
            attributes: jsonSchema(spec.schema, 'input'),
            meta: { type: 'object' },
          },
        },
        meta: { type: 'object' },
        jsonapi: { type: 'object' },
      },
    };
  };
  if (resource.create) write(`${t}_create`, resource.create, false);
  if (resource.update) write(`${t}_update`, resource.update, true);
  return schemas;
}

function filterDescription(resource: AnyResourceDef): string {
  const names = ['id', ...Object.entries(resource.attributes).filter(([, d]) => d.filter).map(([n]) => n)];
  return [
    `Filters on ${names.join(', ')}: \`filter[attr]=value\` (equality) or \`filter[attr][op]=value\` with op one of ${operators.join(', ')}`,
    '(`in` takes an indexed list, `is_nil` true/false). Combine with `filter[and][i]`, `filter[or][i]` and `filter[not]`.',
    'At most 10 levels of brackets.',
  ].join(' ');
}

function pascal(type: string): string {
  return type.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

function resourcePaths(resource: AnyResourceDef): Json {
  const t = resource.type;
  const name = pascal(t);
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const fieldsParam = {
    name: `fields[${t}]`,
    in: 'query',
    description: 'Comma-separated attributes to return (sparse fieldset).',
    schema: { type: 'string' },
  };
  const notAcceptable = jsonApiError('`Accept` allows no JSON:API media type.');
  const collection: Json = {
    get: {
      operationId: `list${name}s`,
      summary: `List ${t} resources`,
      description: resource.description,
      parameters: [
        { name: 'filter', in: 'query', style: 'deepObject', explode: true, description: filterDescription(resource), schema: { type: 'object' } },
        { name: 'sort', in: 'query', description: 'Comma-separated attributes; `-` prefix for descending.', schema: { type: 'string' } },
        { name: 'page[limit]', in: 'query', description: `Default ${DEFAULT_PAGE_LIMIT}; larger than ${MAX_PAGE_LIMIT} is lowered to ${MAX_PAGE_LIMIT}.`, schema: { type: 'integer', minimum: 1 } },
        { name: 'page[offset]', in: 'query', schema: { type: 'integer', minimum: 0 } },
        { name: 'page[count]', in: 'query', description: '`true` adds `meta.page.total` and `links.last`.', schema: { type: 'boolean' } },
        fieldsParam,
      ],
      responses: {
        '200': { description: 'A page of resources.', content: jsonApiContent(ref(`${t}_list`)) },
        '400': jsonApiError('Invalid filter, sort, fields or page parameter.'),
        '406': notAcceptable,
        ...authResponses,
      },
    },
  };
  const item: Json = {
    parameters: [idParam],
    get: {
      operationId: `get${name}`,
      summary: `Get one ${t}`,
      parameters: [fieldsParam],
      responses: {
        '200': { description: 'The resource.', content: jsonApiContent(ref(`${t}_document`)) },
        '400': jsonApiError('Invalid fields parameter.'),
        '404': jsonApiError('No such resource for this key.'),
        '406': notAcceptable,
        ...authResponses,
      },
    },
  };
  if (resource.create) {
    collection.post = {
      operationId: `create${name}`,
      summary: `Create a ${t}`,
      requestBody: { required: true, content: jsonApiContent(ref(`${t}_create`)) },
      responses: {
        '201': {
          description: 'Created; `Location` is `data.links.self`.',
          headers: { Location: { schema: { type: 'string' } } },
          content: jsonApiContent(ref(`${t}_document`)),
        },
        '400': jsonApiError('Malformed JSON, unknown attribute or wrong type.'),
        '403': {
          description: 'A client-generated id (JSON:API envelope), or a key without the capability or scope (fiscal envelope).',
          content: { ...jsonApiContent(ref('jsonapi_errors')), ...jsonContent(ref('fiscal_error')) },
        },
        '406': notAcceptable,
        '409': jsonApiError('`data.type` is not this collection’s type.'),
        '413': jsonApiError('Body over 1 MiB.'),
        '415': jsonApiError('Body not sent as application/vnd.api+json.'),
        '422': jsonApiError('An attribute failed validation.'),
        '401': authResponses['401'],
        '429': authResponses['429'],
      },
    };
  }
  if (resource.update) {
    item.patch = {
      operationId: `update${name}`,
      summary: `Update a ${t}`,
      requestBody: { required: true, content: jsonApiContent(ref(`${t}_update`)) },
      responses: {
        '200': { description: 'Updated.', content: jsonApiContent(ref(`${t}_document`)) },
        '400': jsonApiError('Malformed JSON, unknown attribute or wrong type.'),
        '404': jsonApiError('No such resource for this key.'),
        '406': notAcceptable,
        '409': jsonApiError('`data.type` or `data.id` does not match.'),
        '413': jsonApiError('Body over 1 MiB.'),
        '415': jsonApiError('Body not sent as application/vnd.api+json.'),
        '422': jsonApiError('An attribute failed validation.'),
        ...authResponses,
      },
    };
  }
  if (resource.remove) {
    item.delete = {
      operationId: `delete${name}`,
      summary: `Delete a ${t}`,
      responses: {
        '204': { description: 'Deleted.' },
        '404': jsonApiError('No such resource for this key.'),
        ...authResponses,
      },
    };
  }
  return {
    [resource.path]: collection,
    [`${resource.path}/{id}`]: item,
  };
}

/**
 * The OpenAPI 3.1 document of the JSON:API resources, generated from the same
 * definitions the handlers serve (CONTRACT §7).
 */
export function buildOpenApiDocument(resources: readonly AnyResourceDef[], version: string): Json {
  const paths: Json = {
    '/api/v1/openapi': {
      get: {
        operationId: 'getOpenApi',
        summary: 'This document (no key needed)',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1 document.', content: jsonContent({ type: 'object' }) } },
      },
    },
  };
  let schemas: Json = { ...sharedSchemas };
  for (const resource of resources) {
    Object.assign(paths, resourcePaths(resource));
    schemas = { ...schemas, ...resourceSchemas(resource) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sello — JSON:API resources',
      version,
      description:
        'Family B resources of the electronic-tax-documents interface, served locally by Sello. Authenticate with `Authorization: Bearer sello_…`.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Family B key: `sello_live_…` or `sello_test_…`.' } },
      schemas,
    },
  };
}
