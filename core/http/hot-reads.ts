import crypto from 'node:crypto';
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import { rateLimitHeaders, type Authenticator, type RateLimiter } from '../auth/index.js';
import type { Store } from '../db/index.js';
import type { Logger } from '../log/index.js';
import { JSONAPI_MEDIA_TYPE } from './envelopes.js';
import { acceptsJsonApi } from './jsonapi/media-type.js';
import { readCacheKey, type ResponseCache } from './jsonapi/response-cache.js';
import { bearer } from './middleware/authenticate.js';
import type { CheckedHost } from './middleware/host-check.js';
import { EVERY_RESPONSE_HEADERS } from './middleware/request.js';

export interface HotReadDeps {
  store: Store;
  log: Logger;
  keys: Authenticator;
  limiter: RateLimiter;
  cache: ResponseCache;
  /** The Host check of the full pipeline (middleware/host-check.ts). */
  checkHost(hostHeader: string | undefined, localPort: number | undefined): CheckedHost | undefined;
}

/**
 * Answers a JSON:API read whose body is already in the read cache, before Koa.
 *
 * An ERP polls the same lists all day. Building a Koa context and running the
 * middleware for such a request cost about twice what the answer itself costs
 * (docs/PERFORMANCE.md), so a repeat read is served here when, and only when,
 * every check the full pipeline would make passes: the Host, a key already checked
 * while the store was at its present change marker, the book's `accounting_api`
 * capability and the route's scope, `Accept`, and the rate limit. Anything else
 * (a miss, an unknown key, any refusal) returns false and goes through Koa, which
 * gives the error its envelope. A refused rate-limit take counts nothing, so Koa
 * asking again gives the same answer.
 *
 * Returns true when it has answered.
 */
export function createHotReads(deps: HotReadDeps): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith('/api/')) return false;
    const host = deps.checkHost(req.headers.host, req.socket.localPort);
    if (!host) return false;
    const presented = bearer(req.headers.authorization ?? '');
    // Without a key nothing can be a hit: leave before reading the store's marker.
    if (presented === undefined) return false;
    const marker = deps.store.changeMarker();
    const caller = deps.keys.remembered('b', presented, marker);
    if (caller?.family !== 'b' || !caller.book.accountingApi) return false;
    const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    // The same origin the full pipeline keys its reads with (the checked Host, never the raw header).
    const read = deps.cache.get(readCacheKey(caller, `${protocol}://${host.authority}`, url), marker);
    if (!read || (read.scope && !caller.scopes.includes(read.scope))) return false;
    if (!acceptsJsonApi(req.headers.accept)) return false;
    const decision = deps.limiter.take(caller.keyId);
    if (!decision.allowed) return false;

    const requestId = crypto.randomUUID();
    // The same headers, in the same order, as the full pipeline sends with a cached read.
    res.writeHead(200, {
      'X-Request-Id': requestId,
      ...EVERY_RESPONSE_HEADERS,
      ...rateLimitHeaders(decision),
      'Content-Type': JSONAPI_MEDIA_TYPE,
      'Content-Length': read.body.length,
    });
    res.end(read.body);
    deps.log.debug('request', { requestId, method: 'GET', path: url.split('?', 1)[0], status: 200, cached: true });
    return true;
  };
}
