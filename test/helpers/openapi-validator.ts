/**
 * Checks real responses against the OpenAPI 3.1 document the agent serves
 * (CONTRACT §7: "every response of the API conforms to it").
 *
 *   const conformance = createOpenApiValidator(doc);
 *   const res = await agent.fetch('/api/v1/webhook-endpoints', { headers });
 *   expect(await conformance.check('GET', '/api/v1/webhook-endpoints', res)).toEqual([]);
 *
 * `check` finds the operation for the method and the concrete path (literal
 * paths win over templated ones), the response for the status (`404`, then
 * `4XX`, then `default`), the media type of the `Content-Type` (parameters such
 * as `charset` ignored) and validates the body with Ajv (JSON Schema 2020-12,
 * the document's own `components` resolving every `$ref`). It returns a list of
 * problems, empty when the response conforms.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
};

interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OpenApiValidator {
  /** The templated path of the document that serves a concrete path, e.g. `/api/v1/webhook-endpoints/{id}`. */
  matchPath(path: string): string | undefined;
  /** Every (method, templated path) pair the document describes. */
  operations(): Array<{ method: string; path: string }>;
  /** Problems of a body already read; empty when it conforms. */
  validate(input: { method: string; path: string; status: number; contentType: string | null; body: string }): string[];
  /** Reads the response body (the Response is consumed) and validates it. */
  check(method: string, path: string, res: Response): Promise<string[]>;
}

/** A JSON Pointer token (RFC 6901). */
function pointerToken(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DOCUMENT_ID = 'urn:sello:openapi';

export function createOpenApiValidator(doc: OpenApiDocument): OpenApiValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // Ajv itself knows no formats; these are the ones the document uses.
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  // The whole document under one id: a response schema is reached by its JSON
  // Pointer and its `#/components/schemas/…` references resolve in the document.
  ajv.addSchema({ ...structuredClone(doc), $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();

  const templates = Object.keys(doc.paths).map((template) => {
    const pattern = template.split(/(\{[^}]+\})/).map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
    return { template, regex: new RegExp(`^${pattern}$`), literal: !template.includes('{') };
  });

  const matchPath = (path: string): string | undefined => {
    const matches = templates.filter((t) => t.regex.test(path));
    return (matches.find((m) => m.literal) ?? matches[0])?.template;
  };

  const validate: OpenApiValidator['validate'] = ({ method, path, status, contentType, body }) => {
    const template = matchPath(path);
    if (!template) return [`${method} ${path}: no path of the document matches`];
    const m = method.toLowerCase();
    const operation = doc.paths[template]?.[m];
    if (!isRecord(operation)) return [`${method} ${template}: operation not documented`];
    const responses = (isRecord(operation.responses) ? operation.responses : {}) as Record<string, ResponseObject | undefined>;
    const code = String(status);
    const key = [code, `${code[0]}XX`, 'default'].find((k) => isRecord(responses[k]));
    if (!key) return [`${method} ${template}: status ${status} not documented (documented: ${Object.keys(responses).join(', ')})`];
    const response = responses[key]!;
    const content = response.content;
    if (!content || Object.keys(content).length === 0) {
      return body.length === 0 ? [] : [`${method} ${template} ${status}: documented without content, but a body came: ${body.slice(0, 200)}`];
    }
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const documented = Object.keys(content).find((t) => t.toLowerCase() === mediaType);
    if (!documented) {
      return [`${method} ${template} ${status}: content type "${contentType}" not documented (documented: ${Object.keys(content).join(', ')})`];
    }
    if (content[documented]?.schema === undefined) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`${method} ${template} ${status}: body is not JSON: ${body.slice(0, 200)}`];
    }
    const pointer = ['paths', template, m, 'responses', key, 'content', documented, 'schema'].map(pointerToken).join('/');
    let check = compiled.get(pointer);
    if (!check) {
      check = ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      compiled.set(pointer, check);
    }
    if (check(parsed)) return [];
    return (check.errors ?? []).map(
      (e) => `${method} ${template} ${status} ${documented}: ${e.instancePath || '(root)'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
    );
  };

  return {
    matchPath,
    operations() {
      return Object.entries(doc.paths).flatMap(([path, item]) =>
        HTTP_METHODS.filter((method) => isRecord(item[method])).map((method) => ({ method, path })),
      );
    },
    validate,
    async check(method, path, res) {
      const body = await res.text();
      return validate({ method, path: path.split('?')[0]!, status: res.status, contentType: res.headers.get('content-type'), body });
    },
  };
}
