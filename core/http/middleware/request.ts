import crypto from 'node:crypto';
import type Koa from 'koa';
import type { Logger } from '../../log/index.js';
import type { State } from '../context.js';
import { surfaceForPath } from '../router.js';

/** Sent on every answer: API bodies are never sniffed as HTML, nor kept by caches. */
export const EVERY_RESPONSE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

/**
 * Gives each request an id (echoed in `X-Request-Id` and every log line), its
 * language (Spanish unless `Accept-Language` prefers English) and a default
 * surface; logs one line when it ends.
 */
export function requestMiddleware(log: Logger): Koa.Middleware<State> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.requestId = crypto.randomUUID();
    ctx.state.lang = prefersEnglish(ctx.get('Accept-Language')) ? 'en' : 'es';
    ctx.state.surface = surfaceForPath(ctx.path);
    ctx.state.params = {};
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set(EVERY_RESPONSE_HEADERS);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.debug('request', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 100) / 100,
      });
    }
  };
}

function prefersEnglish(header: string): boolean {
  if (!header) return false;
  let best = { lang: '', q: -1 };
  for (const part of header.split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? 1);
    const lang = tag.trim().toLowerCase().slice(0, 2);
    if ((lang === 'en' || lang === 'es') && q > best.q) best = { lang, q };
  }
  return best.lang === 'en';
}
