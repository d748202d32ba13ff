import { SelloError, type Language } from '../errors/index.js';
import type { Surface } from './context.js';

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

/** Family A `type` by status (CONTRACT §4). */
function familyAType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Authentication and rate limiting on Family B always use the fiscal envelope. */
const fiscalOnJsonApi = new Set(['unauthorized', 'forbidden', 'rate_limited']);

export interface RenderedError {
  status: number;
  contentType: string;
  body: unknown;
}

/** The one place that turns an error into a response body, per surface. */
export function renderError(err: SelloError, surface: Surface, lang: Language): RenderedError {
  const status = err.status;
  if (surface === 'family-a') {
    const body: Record<string, unknown> = { type: familyAType(status), message: err.text(lang) };
    if (err.details.fields) body.params = err.details.fields;
    return { status, contentType: 'application/json; charset=utf-8', body };
  }
  if (surface === 'jsonapi' && !fiscalOnJsonApi.has(err.code)) {
    const error: Record<string, unknown> = {
      status: String(status),
      code: err.code,
      title: err.title(lang),
      detail: err.text(lang),
    };
    if (err.details.pointer !== undefined) error.source = { pointer: err.details.pointer };
    else if (err.details.parameter !== undefined) error.source = { parameter: err.details.parameter };
    if (err.details.meta) error.meta = err.details.meta;
    return { status, contentType: JSONAPI_MEDIA_TYPE, body: { jsonapi: { version: '1.1' }, errors: [error] } };
  }
  const body: Record<string, unknown> = { error: { code: err.code, message: err.text(lang) } };
  if (err.details.fields) body.errors = err.details.fields;
  if (err.details.meta) (body.error as Record<string, unknown>).meta = err.details.meta;
  return { status, contentType: 'application/json; charset=utf-8', body };
}

/** Several JSON:API errors at once (for example every invalid attribute of a body). */
export class JsonApiErrors extends SelloError {
  readonly all: SelloError[];
  constructor(errors: SelloError[]) {
    const first = errors[0] ?? new SelloError('invalid_body');
    super(first.code, first.details);
    this.all = errors;
  }
}

export function renderJsonApiErrors(errors: SelloError[], lang: Language): RenderedError {
  const status = errors[0]?.status ?? 400;
  return {
    status,
    contentType: JSONAPI_MEDIA_TYPE,
    body: {
      jsonapi: { version: '1.1' },
      errors: errors.map((e) => {
        const rendered = renderError(e, 'jsonapi', lang).body as { errors: unknown[] };
        return rendered.errors[0];
      }),
    },
  };
}
