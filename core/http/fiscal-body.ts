import type { z } from 'zod';
import type { Caller } from '../auth/index.js';
import { SelloError, issueMessages } from '../errors/index.js';
import { parseJson, readBody } from './body.js';
import type { AppContext } from './context.js';
import { MiB } from './context.js';

/**
 * Reads a plain-JSON fiscal body and validates it against `schema`: a wrong content
 * type is 415, malformed JSON 400, anything the schema refuses 422 `validation_failed`
 * with Spanish messages by field path.
 */
export async function readFiscalBody<T>(ctx: AppContext, schema: z.ZodType<T>, limit = MiB): Promise<{ input: T; raw: unknown }> {
  const type = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (type !== 'application/json') {
    throw new SelloError('unsupported_media_type', {
      detail: 'Envíe el cuerpo como JSON con Content-Type: application/json.',
      detailEn: 'Send the body as JSON with Content-Type: application/json.',
    });
  }
  const raw = parseJson(await readBody(ctx.req, limit));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new SelloError('validation_failed', { fields: issueMessages(parsed.error.issues) });
  return { input: parsed.data, raw };
}

/** The Family B caller of a fiscal route (its book and environment); the route's `auth` already required one. */
export function bookCaller(ctx: AppContext): Extract<Caller, { family: 'b' }> {
  const caller: Caller | undefined = ctx.state.caller;
  if (caller?.family !== 'b') throw new SelloError('unauthorized');
  return caller;
}

/** A fiscal answer: `body` is JSON already serialized (so a stored idempotent answer is sent as it was). */
export function sendJson(ctx: AppContext, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = body;
}
