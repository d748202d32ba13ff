import { describe, expect, it } from 'vitest';
import { JITTER, nextAttempt, parseRetryAfter, schedules, type AttemptOutcome } from '../../../core/delivery/index.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');
const middle = () => 0.5; // no jitter
const failure: AttemptOutcome = { ok: false, status: 500 };

function after(attemptsMade: number, outcome: AttemptOutcome = failure, options: { random?: () => number; timeScale?: number; kind?: 'webhook' | 'callback' } = {}) {
  return nextAttempt({
    schedule: schedules[options.kind ?? 'webhook'],
    attemptsMade,
    outcome,
    now,
    random: options.random ?? middle,
    timeScale: options.timeScale ?? 1,
  });
}

describe('schedules', () => {
  it('holds the contract’s webhook and callback schedules (CONTRACT §9)', () => {
    expect(schedules.webhook).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(schedules.callback).toEqual([0, 5, 300, 1800, 7200]);
  });
});

describe('nextAttempt', () => {
  it('marks a 2xx delivered, whatever the attempt', () => {
    for (let n = 1; n <= 8; n++) expect(after(n, { ok: true })).toEqual({ state: 'delivered' });
  });

  const webhookDelays: Array<[number, number, string]> = [
    [1, 5_000, 'schedules the second attempt 5 seconds after the first'],
    [2, 300_000, 'schedules the third attempt 5 minutes after the second'],
    [3, 1_800_000, 'schedules the fourth attempt 30 minutes after the third'],
    [4, 7_200_000, 'schedules the fifth attempt 2 hours after the fourth'],
    [5, 18_000_000, 'schedules the sixth attempt 5 hours after the fifth'],
    [6, 36_000_000, 'schedules the seventh attempt 10 hours after the sixth'],
    [7, 36_000_000, 'schedules the eighth attempt 10 hours after the seventh'],
  ];
  for (const [made, delay, title] of webhookDelays) {
    it(title, () => {
      expect(after(made)).toEqual({ state: 'pending', dueAt: now + delay, delayMs: delay });
    });
  }

  it('fails a webhook after the eighth failed attempt', () => {
    expect(after(8)).toEqual({ state: 'failed' });
    expect(after(9)).toEqual({ state: 'failed' });
  });

  it('gives callbacks five attempts: 5 s, 5 min, 30 min, 2 h, then failed', () => {
    expect([1, 2, 3, 4].map((n) => (after(n, failure, { kind: 'callback' }) as { delayMs: number }).delayMs)).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000,
    ]);
    expect(after(5, failure, { kind: 'callback' })).toEqual({ state: 'failed' });
  });

  it('keeps jitter within ±20 %, reaching both bounds', () => {
    expect(JITTER).toBe(0.2);
    expect(after(2, failure, { random: () => 0 })).toMatchObject({ delayMs: 240_000 });
    expect(after(2, failure, { random: () => 0.999999 })).toMatchObject({ delayMs: 360_000 });
    for (let i = 0; i < 1000; i++) {
      const step = after(3, failure, { random: Math.random }) as { delayMs: number };
      expect(step.delayMs).toBeGreaterThanOrEqual(1_800_000 * 0.8);
      expect(step.delayMs).toBeLessThanOrEqual(1_800_000 * 1.2);
    }
  });

  it('multiplies every delay by the time scale', () => {
    expect(after(1, failure, { timeScale: 0.001 })).toEqual({ state: 'pending', dueAt: now + 5, delayMs: 5 });
    expect(after(7, failure, { timeScale: 0.001 })).toMatchObject({ delayMs: 36_000 });
    expect(after(2, failure, { timeScale: 0 })).toMatchObject({ delayMs: 0, dueAt: now });
  });

  describe('Retry-After', () => {
    it('is honoured on 429 when it falls between the base delay and twice it', () => {
      expect(after(2, { ok: false, status: 429, retryAfterSeconds: 450 })).toMatchObject({ delayMs: 450_000 });
    });

    it('is clamped up to the base delay when shorter', () => {
      expect(after(2, { ok: false, status: 503, retryAfterSeconds: 1 })).toMatchObject({ delayMs: 300_000 });
    });

    it('is clamped down to twice the base delay when longer', () => {
      expect(after(1, { ok: false, status: 429, retryAfterSeconds: 86_400 })).toMatchObject({ delayMs: 10_000 });
    });

    it('takes no jitter and is scaled like the schedule', () => {
      expect(after(2, { ok: false, status: 429, retryAfterSeconds: 400 }, { random: () => 0, timeScale: 0.01 })).toMatchObject({ delayMs: 4_000 });
    });

    it('is ignored on other statuses', () => {
      expect(after(2, { ok: false, status: 500, retryAfterSeconds: 500 })).toMatchObject({ delayMs: 300_000 });
      expect(after(2, { ok: false, retryAfterSeconds: 500 })).toMatchObject({ delayMs: 300_000 });
    });

    it('cannot extend the budget', () => {
      expect(after(8, { ok: false, status: 429, retryAfterSeconds: 10 })).toEqual({ state: 'failed' });
    });
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date as seconds from now, never negative', () => {
    expect(parseRetryAfter(new Date(now + 90_500).toUTCString(), now)).toBe(90);
    expect(parseRetryAfter(new Date(now - 60_000).toUTCString(), now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});
