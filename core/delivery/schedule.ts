/**
 * When a delivery is tried again: pure functions of the attempt count, the outcome,
 * `Retry-After`, the clock and a random source, so that every branch is unit-tested
 * without timers (STYLE "For Sello" 8, Svix's `calculate_retry_delay`).
 */

/** The states of a delivery row. `sending` holds a lease; the last three are final. */
export type DeliveryState = 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';

export type DeliveryKind = 'webhook' | 'callback';

/**
 * Seconds to wait before each attempt, counted from the previous attempt; the first is
 * "at once". The length is the attempt budget. CONTRACT §9, spec "Limits".
 */
export const schedules: Readonly<Record<DeliveryKind, readonly number[]>> = {
  webhook: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
  callback: [0, 5, 300, 1800, 7200],
};

/** ±20 % on every scheduled delay (CONTRACT §9), so that retries of a burst spread out. */
export const JITTER = 0.2;

/** What one attempt came to. `retryAfterSeconds` only counts on 429 and 503. */
export type AttemptOutcome =
  | { ok: true }
  | { ok: false; status?: number | undefined; retryAfterSeconds?: number | undefined };

export type NextStep =
  | { state: 'delivered' }
  | { state: 'failed' }
  | { state: 'pending'; dueAt: number; delayMs: number };

export interface NextAttemptInput {
  schedule: readonly number[];
  /** Attempts made so far in this budget, the one just finished included (1 after the first). */
  attemptsMade: number;
  outcome: AttemptOutcome;
  /** Epoch milliseconds of the end of the attempt just made. */
  now: number;
  /** A number in [0, 1), like `Math.random`. */
  random: () => number;
  /** Multiplies every delay (the `SELLO_DELIVERY_TIME_SCALE` setting; 1 in production). */
  timeScale: number;
}

/**
 * Decides what follows an attempt: delivered on 2xx; failed once the budget is spent;
 * otherwise pending again after the schedule's next delay with ±20 % jitter. A
 * `Retry-After` on 429/503 replaces the jittered delay but only within the schedule,
 * clamped between the base delay and twice it (as Svix does), so that a receiver can
 * slow Sello down but neither stall a delivery for days nor make it hammer.
 *
 * @example
 *   nextAttempt({ schedule: schedules.webhook, attemptsMade: 2, outcome: { ok: false, status: 500 },
 *                 now, random: () => 0.5, timeScale: 1 });
 *   // { state: 'pending', dueAt: now + 300_000, delayMs: 300_000 }
 */
export function nextAttempt(input: NextAttemptInput): NextStep {
  const { schedule, attemptsMade, outcome, now, random, timeScale } = input;
  if (outcome.ok) return { state: 'delivered' };
  if (attemptsMade >= schedule.length) return { state: 'failed' };
  const baseMs = (schedule[attemptsMade] ?? 0) * 1000 * timeScale;
  const honoured =
    (outcome.status === 429 || outcome.status === 503) && outcome.retryAfterSeconds !== undefined && outcome.retryAfterSeconds >= 0;
  const delayMs = honoured
    ? Math.min(Math.max(outcome.retryAfterSeconds! * 1000 * timeScale, baseMs), baseMs * 2)
    : baseMs * (1 + (random() * 2 - 1) * JITTER);
  const rounded = Math.max(0, Math.round(delayMs));
  return { state: 'pending', dueAt: now + rounded, delayMs: rounded };
}

/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * Returns seconds from `now`, or undefined when absent or unreadable.
 *
 * @example
 *   parseRetryAfter('120', now); // 120
 *   parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', now); // seconds until then, ≥ 0
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
