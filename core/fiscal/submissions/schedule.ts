/**
 * When a submission's next step runs: pure functions of the attempt count, the clock, a random
 * source and the time scale, so every branch is tested without timers (as core/delivery's
 * schedule). Every delay is multiplied by `SELLO_DELIVERY_TIME_SCALE`, like every other
 * schedule of Sello; the give-up limit is a setting of its own, in hours, and is not scaled.
 */

/**
 * Seconds before each new try of the reception after the SRI could not be reached, counted from
 * the failure; the last value repeats until the give-up limit. Short at first (a dropped
 * connection), then hourly (the SRI down for maintenance, which happens for hours at a time).
 */
export const RECEPTION_RETRY_S: readonly number[] = [5, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * Seconds before each authorization poll after the first, which is made at once after the
 * reception: the SRI usually authorizes within seconds, sometimes after hours (EN PROCESO).
 * The last value repeats: a received comprobante is asked about until the SRI decides.
 */
export const AUTHORIZATION_POLL_S: readonly number[] = [1, 2, 5, 10, 30, 60, 300, 900, 1800, 3600];

/** A token certificate without its PIN: the PIN cache is looked at again this often (and at every wake). */
export const PIN_RECHECK_S = 30;

/**
 * After a DEVUELTA 45 (another document holds the number), how many answers "key not known" the
 * authorization service may give before the document ends rejected: the first poll is at once
 * and the SRI may take a moment to show a document it has just processed.
 */
export const UNKNOWN_AFTER_45_LIMIT = 5;

/** ±20 % on every delay, so that the retries of a burst spread out (as webhook deliveries). */
export const JITTER = 0.2;

/**
 * The delay before try number `attemptsMade + 1` of `schedule` (the last entry repeats).
 *
 * @example retryDelayMs(RECEPTION_RETRY_S, 1, 1, () => 0.5) // 5000
 */
export function retryDelayMs(schedule: readonly number[], attemptsMade: number, timeScale: number, random: () => number): number {
  const index = Math.min(Math.max(attemptsMade - 1, 0), schedule.length - 1);
  const base = (schedule[index] ?? 0) * 1000 * timeScale;
  return Math.max(0, Math.round(base * (1 + (random() * 2 - 1) * JITTER)));
}

/**
 * Whether the SRI has been unreachable for longer than `giveUpHours` (CONTRACT §15, 72 h by
 * default): counted from the first failure of the current run of failures.
 *
 * @example pastGiveUp('2026-03-10T10:00:00Z', Date.parse('2026-03-13T10:00:01Z'), 72) // true
 */
export function pastGiveUp(unreachableSince: string | null, now: number, giveUpHours: number): boolean {
  if (unreachableSince === null) return false;
  return now - Date.parse(unreachableSince) > giveUpHours * 3_600_000;
}
