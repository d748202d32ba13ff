import type Koa from 'koa';
import { Router, type Layer, type RouterContext } from '@koa/router';
import type { AppContext, Method, Route, State } from './context.js';

/** What the app does with each outcome of the route table; `createRouter` decides which applies. */
export interface RouteOutcomes {
  /** A route has this path and method; `ctx.state.params` holds its parameters, percent-decoded. */
  found(ctx: AppContext, route: Route): Promise<void> | void;
  /** No route has this path, or the route that would answer has a parameter whose percent-encoding is malformed. */
  notFound(ctx: AppContext): Promise<void> | void;
  /** Routes have this path, none this method (a HEAD asks for GET): `allowed` are their methods, in table order. */
  wrongMethod(ctx: AppContext, allowed: Method[]): Promise<void> | void;
}

/**
 * A route segment `@koa/router` (path-to-regexp 8) and the OpenAPI documents read the
 * same way: a literal made of unreserved characters, or `:name` capturing one whole
 * segment. path-to-regexp gives meaning to more (`{…}` optional parts, `*` wildcards,
 * `:id.json`); a path that used it would match what the documents don't say, so it is
 * refused when the table is built.
 */
const SEGMENT = /^(?::[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9._~-]*)$/;

/**
 * The route table, answered by `@koa/router`. Routes stay data (see `Route`): the
 * OpenAPI documents and the tests read the same list the server answers from, and
 * this builds the router from it, one layer per route, in the list's order.
 *
 * - A path matches case-sensitively, with or without one trailing slash; `:name`
 *   captures one non-empty segment.
 * - The first route of the list with the path and method answers; HEAD is answered
 *   by the GET route (Koa sends no body).
 * - A parameter is percent-decoded with `decodeURIComponent` (`%2F` is a `/` in the
 *   value, `+` stays `+`); a malformed encoding is not found (`@koa/router` would pass
 *   it on undecoded).
 * - A path some route has, with a method none has (OPTIONS and the like included),
 *   is a wrong method with the methods of those routes; `allowedMethods()` is not
 *   used: it would answer OPTIONS with 200, and unknown methods with 501.
 *
 * The returned middleware ends the chain: it never calls `next`.
 */
export function createRouter(routes: readonly Route[], outcomes: RouteOutcomes): Koa.Middleware<State> {
  const router = new Router<State>({ sensitive: true, strict: false });
  const methodOf = new Map<Layer<State>, Method>();
  for (const route of routes) {
    if (!route.path.startsWith('/') || !route.path.split('/').every((segment) => SEGMENT.test(segment))) {
      throw new Error(`Route ${route.method} ${route.path}: a path is "/" and segments that are each a literal or :name`);
    }
    const names: string[] = [];
    const layer = router.register(route.path, [route.method], (ctx) => {
      const params = decodeParams(names, ctx.captures ?? []);
      if (!params) return outcomes.notFound(ctx);
      ctx.state.params = params;
      return outcomes.found(ctx, route);
    });
    // A router comes back only for an array of paths.
    if (layer instanceof Router) throw new Error(`Route ${route.method} ${route.path}: not one layer`);
    names.push(...layer.paramNames.map((key) => key.name));
    methodOf.set(layer, route.method);
  }

  const dispatch = router.routes();
  const unmatched = (ctx: RouterContext<State>): Promise<void> | void => {
    const allowed: Method[] = [];
    for (const layer of ctx.matched ?? []) {
      const method = methodOf.get(layer);
      if (method) allowed.push(method);
    }
    return allowed.length > 0 ? outcomes.wrongMethod(ctx, allowed) : outcomes.notFound(ctx);
  };
  // The router calls `next` when no layer has both the path and the method.
  return (ctx, _next) => dispatch(ctx as RouterContext<State>, async () => unmatched(ctx as RouterContext<State>));
}

/** The captures of a route's parameters, percent-decoded, or undefined when one is malformed. */
function decodeParams(names: readonly string[], captures: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    try {
      params[name] = decodeURIComponent(captures[i] ?? '');
    } catch {
      return undefined;
    }
  }
  return params;
}

/** The envelope of a path no route matched, by its prefix. */
export function surfaceForPath(path: string): Route['surface'] {
  if (path.startsWith('/api/v1/documents')) return 'fiscal';
  if (path.startsWith('/api/')) return 'jsonapi';
  if (path.startsWith('/admin') || path.startsWith('/ui')) return 'admin';
  return 'family-a';
}
