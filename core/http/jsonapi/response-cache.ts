import type { Caller, Scope } from '../../auth/index.js';

/**
 * Keeps the bodies of successful JSON:API reads while the store is unchanged.
 *
 * Freshness is exact, not timed: each entry remembers the store's change marker
 * (this connection's `total_changes()` and `PRAGMA data_version`, which moves when
 * another process commits), and is served only while the marker is the same. Any write
 * anywhere (an endpoint created, a delivery recorded, a key revoked from the CLI)
 * empties it in effect. Reads that repeat between writes (an ERP polling its
 * endpoints) then skip query parsing, SQL and serialization.
 */
export interface CachedRead {
  body: Buffer;
  /** The product scope the route that produced it requires of a key. */
  scope: Scope | undefined;
}

export interface ResponseCache {
  get(key: string, marker: string): CachedRead | undefined;
  set(key: string, marker: string, read: CachedRead): void;
}

/**
 * What a read's body depends on besides the store: who may see what (book and
 * environment, or Family A's environment), the origin in its links, and the URL.
 */
export function readCacheKey(caller: Caller, origin: string, url: string): string {
  const scope = caller.family === 'b' ? `${caller.book.id}:${caller.environment}` : `a:${caller.environment}`;
  return `${scope}|${origin}|${url}`;
}

export function createResponseCache(limits: { maxEntries: number; maxBytes: number }): ResponseCache {
  // Map order is recency order: the first entry is the least recently used.
  // Bodies are kept encoded: a hit then costs no UTF-8 encoding and no length count.
  const entries = new Map<string, { marker: string; read: CachedRead }>();
  let bytes = 0;

  const remove = (key: string): void => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.read.body.length;
  };

  return {
    get(key, marker) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.marker !== marker) {
        remove(key);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry.read;
    },
    set(key, marker, read) {
      if (read.body.length > limits.maxBytes / 8) return;
      remove(key);
      entries.set(key, { marker, read });
      bytes += read.body.length;
      while (entries.size > limits.maxEntries || bytes > limits.maxBytes) {
        remove(entries.keys().next().value!);
      }
    },
  };
}
