/**
 * Requests per minute per key (CONTRACT §5): a fixed one-minute window that opens
 * with a key's first request. Kept in memory: a restart forgives, which is fine for
 * a local agent.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of the key. A refused take counts nothing: asking again gives the same answer. */
  take(keyId: string): RateLimitDecision;
}

const WINDOW_MS = 60_000;

export function createRateLimiter(limit: number, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();

  const sweep = (t: number): void => {
    if (t - lastSweep < WINDOW_MS) return;
    lastSweep = t;
    for (const [key, w] of windows) if (t - w.start >= WINDOW_MS) windows.delete(key);
  };

  return {
    take(keyId) {
      const t = now();
      sweep(t);
      let w = windows.get(keyId);
      if (!w || t - w.start >= WINDOW_MS) {
        w = { start: t, count: 0 };
        windows.set(keyId, w);
      }
      const resetSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
      if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
      w.count += 1;
      return { allowed: true, limit, remaining: limit - w.count, resetSeconds };
    },
  };
}

/** The IETF RateLimit headers sent on every authenticated response. */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `default;q=${d.limit};w=60`,
    RateLimit: `default;r=${d.remaining};t=${d.resetSeconds}`,
  };
}
