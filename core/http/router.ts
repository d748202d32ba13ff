import type { Method, Route } from './context.js';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: Method[] }
  | { kind: 'none' };

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
}

/**
 * A route table: `:name` segments capture one path segment. Kept this small on
 * purpose: routes are data (see `Route`), so the OpenAPI document and the tests
 * can read the same list the server answers from.
 */
export function createRouter(routes: readonly Route[]): (method: string, path: string) => RouteMatch {
  const compiled: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path
      .split('/')
      .map((segment) => {
        if (segment.startsWith(':')) {
          names.push(segment.slice(1));
          return '([^/]+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    return { route, pattern: new RegExp(`^${source}/?$`), names };
  });

  return (method, path) => {
    const allowed: Method[] = [];
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const { route, pattern, names } of compiled) {
      const m = pattern.exec(path);
      if (!m) continue;
      if (route.method !== wanted) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      let malformed = false;
      names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        } catch {
          malformed = true;
        }
      });
      if (malformed) return { kind: 'none' };
      return { kind: 'found', route, params };
    }
    return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
  };
}

/** The envelope of a path no route matched, by its prefix. */
export function surfaceForPath(path: string): Route['surface'] {
  if (path.startsWith('/api/v1/documents')) return 'fiscal';
  if (path.startsWith('/api/')) return 'jsonapi';
  if (path.startsWith('/admin') || path.startsWith('/ui')) return 'admin';
  return 'family-a';
}
