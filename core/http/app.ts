import type http from 'node:http';
import Koa from 'koa';
import { z } from 'zod';
import { createAuthenticator, type RateLimiter } from '../auth/index.js';
import type { Store } from '../db/index.js';
import { SelloError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import type { Route, State } from './context.js';
import type { AdminSessions } from './admin-session.js';
import { authenticateRoute } from './middleware/authenticate.js';
import { errorMiddleware } from './middleware/errors.js';
import { hostChecker } from './middleware/host-check.js';
import { requestMiddleware } from './middleware/request.js';
import { createRouter } from './router.js';
import { createHotReads } from './hot-reads.js';
import type { ResponseCache } from './jsonapi/response-cache.js';

export interface HttpAppDeps {
  store: Store;
  log: Logger;
  limiter: RateLimiter;
  /** Admin sessions of this run: cookie + CSRF, or the Bearer admin token (CONTRACT §14). */
  admin: AdminSessions;
  /** Host names accepted besides the loopback ones; a function when they may change while the agent runs. */
  extraHostNames: readonly string[] | (() => readonly string[]);
  routes: readonly Route[];
  /** The JSON:API read cache the routes fill; repeat reads are answered from it before Koa. */
  readCache: ResponseCache;
}

/**
 * Builds the request listener that serves both API families, the admin API and the
 * UI on one origin: a Koa app, with cached JSON:API reads answered before it
 * (`createHotReads`). It does not listen: `startAgent` does.
 */
export function createHttpApp(deps: HttpAppDeps): http.RequestListener {
  // Validation messages of the schemas in Spanish (CONTRACT §4).
  z.config(z.locales.es());
  const app = new Koa<State>({ proxy: false });
  const keys = createAuthenticator(deps.store);

  app.use(requestMiddleware(deps.log));
  app.use(errorMiddleware(deps.log));
  const checkHost = hostChecker(deps.extraHostNames);
  app.use((ctx, next) => {
    const host = checkHost(ctx.req.headers.host, ctx.req.socket.localPort);
    if (!host) throw new SelloError('misdirected_request');
    ctx.state.origin = `${ctx.protocol}://${host.authority}`;
    return next();
  });
  app.use(
    createRouter(deps.routes, {
      async found(ctx, route) {
        ctx.state.surface = route.surface;
        // One read of the store's change marker serves the key check and any cached read.
        if (route.auth === 'family-a' || route.auth === 'family-b') ctx.state.storeMarker = deps.store.changeMarker();
        authenticateRoute(keys, deps.limiter, deps.admin, ctx, route);
        await route.handler(ctx);
      },
      notFound(ctx) {
        // An API path answers 401 before 404, so that routes can't be probed without a key.
        const surface = ctx.state.surface;
        // Every unknown /admin/api path is 401 without a session too (CONTRACT §14).
        const auth = surface === 'family-a' ? 'family-a' : surface === 'admin' ? (ctx.path.startsWith('/admin/') ? 'admin' : 'none') : 'family-b';
        authenticateRoute(keys, deps.limiter, deps.admin, ctx, { method: 'GET', path: ctx.path, surface, auth, handler: () => undefined });
        throw new SelloError('route_not_found', { detail: `No existe la ruta ${ctx.method} ${ctx.path}.`, detailEn: `No route ${ctx.method} ${ctx.path}.` });
      },
      wrongMethod(ctx, allowed) {
        // Answered before any key check: a 405 tells whoever asks which methods the path has.
        throw new SelloError('method_not_allowed', {
          detail: `Método ${ctx.method} no permitido en ${ctx.path}. Permitidos: ${allowed.join(', ')}.`,
          detailEn: `Method ${ctx.method} not allowed on ${ctx.path}. Allowed: ${allowed.join(', ')}.`,
          headers: { Allow: allowed.join(', ') },
        });
      },
    }),
  );

  const hotRead = createHotReads({ store: deps.store, log: deps.log, keys, limiter: deps.limiter, cache: deps.readCache, checkHost });
  const koa = app.callback();
  return (req, res) => {
    if (!hotRead(req, res)) void koa(req, res);
  };
}
