import { errorCatalog, type ErrorCode } from './catalog.js';

export { errorCatalog, isErrorCode, type ErrorCode, type ErrorEntry } from './catalog.js';

export type Language = 'es' | 'en';

export interface SelloErrorDetails {
  /** A more specific human text than the catalog's, in Spanish. */
  detail?: string;
  /** The same in English, when `detail` is given. */
  detailEn?: string;
  /** JSON pointer into the request body (JSON:API `source.pointer`). */
  pointer?: string;
  /** Query parameter at fault (JSON:API `source.parameter`). */
  parameter?: string;
  /** Messages by field path (fiscal `errors`, Family A `params`). */
  fields?: Record<string, string[]>;
  /** Overrides the catalog status (rarely needed). */
  status?: number;
  /** Extra response headers, such as `Retry-After`. */
  headers?: Record<string, string>;
  /** Extra machine-readable facts (for example `retries_left` of a token). */
  meta?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type of Sello's domain. Its `code` is stable and documented; the
 * HTTP edge turns it into the envelope of the family that was called.
 *
 * @example
 *   throw new SelloError('page_out_of_range', { detail: 'El PDF tiene 3 páginas; se pidió la 7.' });
 */
export class SelloError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: SelloErrorDetails;

  constructor(code: ErrorCode, details: SelloErrorDetails = {}) {
    super(details.detail ?? errorCatalog[code].es, { cause: details.cause });
    this.name = 'SelloError';
    this.code = code;
    this.status = details.status ?? errorCatalog[code].status;
    this.details = details;
  }

  /** The catalog's short text for this code. */
  title(lang: Language = 'es'): string {
    return errorCatalog[this.code][lang];
  }

  /** The most specific human text available in `lang`. */
  text(lang: Language = 'es'): string {
    if (lang === 'en') return this.details.detailEn ?? (this.details.detail ? this.details.detail : errorCatalog[this.code].en);
    return this.details.detail ?? errorCatalog[this.code].es;
  }
}

export function isSelloError(err: unknown): err is SelloError {
  return err instanceof SelloError;
}

/**
 * An empty record of messages by field path. It has no prototype, so a field named by the
 * client (`constructor`, `toString`, `__proto__`) is just another key, never an inherited
 * property.
 *
 * @example
 *   const fields = fieldMessages();
 *   (fields[name] ??= []).push('campo no admitido');
 */
export function fieldMessages(): Record<string, string[]> {
  return Object.create(null) as Record<string, string[]>;
}

/** `lines[0].unit_price`: the field paths of the fiscal envelope (spec, Fiscal-endpoint envelope). */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${String(part)}` : String(part)), '');
}

/** The part of a schema issue (zod's shape) that the messages need. */
export interface SchemaIssue {
  code: string;
  path: ReadonlyArray<PropertyKey>;
  message: string;
  keys?: readonly string[];
}

/**
 * A schema's issues as messages by field path; an attribute the schema does not know is
 * named by its own path, with "campo no admitido".
 *
 * @example
 *   issueMessages(schema.safeParse(body).error.issues) // { 'lines[0].unit_price': ['…'], colour: ['campo no admitido'] }
 */
export function issueMessages(issues: ReadonlyArray<SchemaIssue>): Record<string, string[]> {
  const fields = fieldMessages();
  for (const issue of issues) {
    const unknown = issue.code === 'unrecognized_keys';
    const paths = unknown ? (issue.keys ?? []).map((k) => [...issue.path, k]) : [issue.path];
    for (const path of paths) (fields[fieldPath(path) || 'body'] ??= []).push(unknown ? 'campo no admitido' : issue.message);
  }
  return fields;
}
