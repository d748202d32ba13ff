import type { Store } from '../db/index.js';
import { version } from '../version.js';
import type { Route } from './context.js';
import { jsonApiRoutes } from './jsonapi/handlers.js';
import { buildOpenApiDocument } from './jsonapi/openapi.js';
import type { ResponseCache } from './jsonapi/response-cache.js';
import type { AnyResourceDef } from './jsonapi/resource.js';

/** Every JSON:API resource plus `GET /api/v1/openapi`, generated from the same list. */
export function apiV1Routes(store: Store, resources: readonly AnyResourceDef[], cache: ResponseCache): Route[] {
  // Made at the first request for it, not at every start: 10–50 ms that no other request needs.
  let openapi: string | undefined;
  return [
    ...resources.flatMap((r) => jsonApiRoutes(r, store, cache)),
    {
      method: 'GET',
      path: '/api/v1/openapi',
      surface: 'jsonapi',
      // Public: the description of the API holds no data, and tools fetch it before they have a key.
      auth: 'none',
      handler(ctx) {
        ctx.type = 'application/json';
        ctx.body = openapi ??= JSON.stringify(buildOpenApiDocument(resources, version));
      },
    },
  ];
}
