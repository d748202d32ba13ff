/**
 * What an error answer must look like while a fault lasts (CONTRACT §4, docs/errors.md): the
 * envelope of the family that was called, a Spanish message a person can act on, never a
 * stack trace, and, for a fault of the machine rather than of the request, a 5xx that says
 * which fault it is (`storage_full`, `storage_busy`) instead of a bare `internal_error`.
 */
import type { Answer } from './harness.js';

export type Family = 'fiscal' | 'family-a' | 'jsonapi' | 'admin';

export interface ExpectedError {
  /** The stable code (fiscal, JSON:API and admin envelopes carry it; Family A does not). */
  code: string;
  status: number;
  /** A piece of the Spanish message (Family A has only the message to tell faults apart). */
  message: RegExp;
  /** Whether the answer must carry `Retry-After`. */
  retryAfter?: boolean;
}

export const STORAGE_FULL: ExpectedError = { code: 'storage_full', status: 507, message: /espacio/i };
export const STORAGE_BUSY: ExpectedError = { code: 'storage_busy', status: 503, message: /bloquead|ocupad/i, retryAfter: true };

/** Problems with an error answer; empty when it is the expected clear error in its family's envelope. */
export function envelopeProblems(family: Family, a: Answer, expected: ExpectedError): string[] {
  const problems: string[] = [];
  if (/\bat .+:\d+:\d+/.test(a.text)) problems.push('stack trace in the body');
  if (a.json === undefined || a.json === null || typeof a.json !== 'object') return [...problems, `not JSON: ${a.text.slice(0, 160)}`];
  const b = a.json as Record<string, unknown>;
  let code: string | undefined;
  let message: string | undefined;
  if (family === 'family-a') {
    if (b.type !== 'api_error') problems.push(`type ${String(b.type)}, not api_error`);
    message = typeof b.message === 'string' ? b.message : undefined;
  } else if (family === 'jsonapi') {
    const e = (b.errors as Array<Record<string, unknown>> | undefined)?.[0];
    code = typeof e?.code === 'string' ? e.code : undefined;
    message = typeof e?.detail === 'string' ? e.detail : undefined;
  } else {
    const e = b.error as Record<string, unknown> | undefined;
    code = typeof e?.code === 'string' ? e.code : undefined;
    message = typeof e?.message === 'string' ? e.message : undefined;
  }
  if (message === undefined) problems.push(`no message: ${a.text.slice(0, 160)}`);
  if (family !== 'family-a' && code !== expected.code) problems.push(`code ${String(code)}, expected ${expected.code}`);
  if (a.status !== expected.status) problems.push(`status ${a.status}, expected ${expected.status}`);
  if (message !== undefined && !expected.message.test(message)) problems.push(`message does not say what happened: "${message}"`);
  if (expected.retryAfter && !/^\d+$/.test(a.headers.get('retry-after') ?? '')) problems.push('no Retry-After');
  return problems;
}
