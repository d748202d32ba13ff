import { rateLimitHeaders, type Authenticator, type RateLimiter } from '../../auth/index.js';
import { SelloError } from '../../errors/index.js';
import type { AdminSessions } from '../admin-session.js';
import type { AppContext, Route } from '../context.js';

/**
 * Checks the caller of a route (CONTRACT §3, §5): the key of the route's family,
 * then the rate limit of that key, then (Family B) the book's `accounting_api`
 * capability and the route's product scope.
 */
export function authenticateRoute(keys: Authenticator, limiter: RateLimiter, admin: AdminSessions, ctx: AppContext, route: Route): void {
  if (route.auth === 'none') return;
  if (route.auth === 'admin') {
    // CONTRACT §14: session cookie + CSRF, or the Bearer admin token.
    admin.assert(ctx);
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

/** The key of an `Authorization: Bearer …` header. */
export function bearer(header: string): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
