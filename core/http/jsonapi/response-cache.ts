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
export interface ResponseCache {
  get(key: string, marker: string): Buffer | undefined;
  set(key: string, marker: string, body: Buffer): void;
}

export function createResponseCache(limits: { maxEntries: number; maxBytes: number }): ResponseCache {
  // Map order is recency order: the first entry is the least recently used.
  // Bodies are kept encoded: a hit then costs no UTF-8 encoding and no length count.
  const entries = new Map<string, { marker: string; body: Buffer }>();
  let bytes = 0;

  const remove = (key: string): void => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.body.length;
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
      return entry.body;
    },
    set(key, marker, body) {
      if (body.length > limits.maxBytes / 8) return;
      remove(key);
      entries.set(key, { marker, body });
      bytes += body.length;
      while (entries.size > limits.maxEntries || bytes > limits.maxBytes) {
        remove(entries.keys().next().value!);
      }
    },
  };
}
