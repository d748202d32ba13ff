import { describe, expect, it } from 'vitest';
import { createRateLimiter, rateLimitHeaders } from '../../../core/auth/index.js';

describe('createRateLimiter', () => {
  it('allows the limit within a minute, then refuses until the window ends', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter(3, () => now);
    expect([1, 2, 3].map(() => limiter.take('k').allowed)).toEqual([true, true, true]);
    now += 20_000;
    const refused = limiter.take('k');
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 40 });
    now += 40_000;
    expect(limiter.take('k')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('keeps a separate budget per key', () => {
    const limiter = createRateLimiter(1, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('never says to wait less than one second', () => {
    let now = 0;
    const limiter = createRateLimiter(1, () => now);
    limiter.take('k');
    now = 59_999;
    expect(limiter.take('k').resetSeconds).toBe(1);
  });
});

describe('rateLimitHeaders', () => {
  it('writes the IETF RateLimit-Policy and RateLimit fields', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 300, remaining: 12, resetSeconds: 7 })).toEqual({
      'RateLimit-Policy': 'default;q=300;w=60',
      RateLimit: 'default;r=12;t=7',
    });
  });
});
