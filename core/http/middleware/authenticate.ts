import crypto from 'node:crypto';
import { rateLimitHeaders, type Authenticator, type RateLimiter } from '../../auth/index.js';
import { SelloError } from '../../errors/index.js';
import type { AppContext, Route } from '../context.js';

/**
 * Checks the caller of a route (CONTRACT §3, §5): the key of the route's family,
 * then the rate limit of that key, then (Family B) the book's `accounting_api`
 * capability and the route's product scope.
 */
export function authenticateRoute(keys: Authenticator, limiter: RateLimiter, adminToken: string, ctx: AppContext, route: Route): void {
  if (route.auth === 'none') return;
  if (route.auth === 'admin') {
    assertAdmin(adminToken, bearer(ctx.get('Authorization')));
    return;
  }
  const caller =
    route.auth === 'family-a'
      ? keys.authenticate('a', ctx.get('X-Api-Key') || undefined, ctx.state.storeMarker)
      : keys.authenticate('b', bearer(ctx.get('Authorization')), ctx.state.storeMarker);
  const decision = limiter.take(caller.keyId);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) ctx.set(name, value);
  if (!decision.allowed) {
    throw new SelloError('rate_limited', {
      detail: `Se superó el límite de ${decision.limit} solicitudes por minuto. Reintente en ${decision.resetSeconds} s.`,
      detailEn: `The limit of ${decision.limit} requests per minute was exceeded. Retry in ${decision.resetSeconds} s.`,
      headers: { 'Retry-After': String(decision.resetSeconds) },
    });
  }
  if (caller.family === 'b') {
    if (!caller.book.accountingApi) {
      throw new SelloError('forbidden', {
        detail: 'El libro de esta clave no tiene la capacidad accounting_api.',
        detailEn: 'The book of this key lacks the accounting_api capability.',
      });
    }
    if (route.scope && !caller.scopes.includes(route.scope)) {
      throw new SelloError('forbidden', {
        detail: `La clave no tiene el ámbito "${route.scope}".`,
        detailEn: `The key lacks the "${route.scope}" scope.`,
      });
    }
  }
  ctx.state.caller = caller;
}

/**
 * The admin API (CONTRACT §14) takes the session token of this run of the agent,
 * as `Authorization: Bearer <token>`. Compared in constant time.
 */
function assertAdmin(expected: string, presented: string | undefined): void {
  const a = crypto.createHash('sha256').update(expected).digest();
  const b = crypto.createHash('sha256').update(presented ?? '').digest();
  if (!presented || !crypto.timingSafeEqual(a, b)) {
    throw new SelloError('unauthorized', {
      detail: 'Falta la sesión de administración o no es válida.',
      detailEn: 'The admin session is missing or invalid.',
    });
  }
}

function bearer(header: string): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
