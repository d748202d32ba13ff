import { isStorageFault, type Store } from '../db/index.js';
import type { Logger } from '../log/index.js';
import type { SecretBox } from '../secrets/index.js';
import { pruneDeliveryHistory } from './prune.js';
import { nextAttempt, parseRetryAfter, schedules } from './schedule.js';
import { createSender, type HttpResult } from './sender.js';
import { deliveryHeaders } from './signature-headers.js';
import {
  cancelOrphans,
  claimDue,
  enqueueCallbackRow,
  enqueueWebhookRows,
  nextDueAt,
  readTarget,
  recordOutcomes,
  releaseAbandonedLeases,
  type AttemptRecord,
  type CallbackInput,
  type ClaimedDelivery,
  type WebhookEventType,
} from './store.js';

export interface DeliveryEngine {
  /**
   * Inside the caller's transaction: one delivery row per subscribed, active, not-deleted
   * endpoint of the event's book in environment `live`. Returns how many. At most one per
   * (endpoint, document, event type): a UNIQUE index and INSERT OR IGNORE.
   */
  enqueueWebhookEvent(event: { id: string; bookId: string; documentId: string; type: WebhookEventType }): number;
  /**
   * Inside the caller's transaction: the signing-result callback of `requestId` (CONTRACT §9:
   * 5 attempts on the callback schedule; optional `Authorization: Bearer`, sealed here). At
   * most one per request: a repeat returns 0 and changes nothing. Call `wake()` after commit.
   */
  enqueueCallback(callback: { url: string; bearerToken?: string | undefined; body: string; requestId: string }): number;
  /** After commit: start due deliveries now; a new event must not wait for a poll. */
  wake(): void;
  start(): void;
  /** Stops claiming; lets in-flight attempts finish (bounded), records them, releases leases. */
  stop(): Promise<void>;
}

export interface DeliveryEngineDeps {
  store: Store;
  secrets: SecretBox;
  log: Logger;
  /** `SELLO_DELIVERY_TIME_SCALE`: multiplies every schedule delay. */
  timeScale: number;
  /** `SELLO_CA_FILE`: extra CAs trusted for HTTPS destinations. */
  caFile?: string | undefined;
  retentionDays: number;
  /** `Sello/<version>` */
  userAgent: string;
  now?: () => number;
  random?: () => number;
  /** Per-attempt timeout; 15 s (CONTRACT §9). Only tests shorten it. */
  timeoutMs?: number;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** How long `stop()` waits for attempts in flight before cutting them. */
  drainMs?: number;
}

/** Group commit: outcomes wait this long to share one transaction (one fsync). */
const RECORD_DELAY_MS = 2;
/**
 * After a failed tick: soon, unless the disk is full or another program holds the database —
 * then every try would stall the agent for the store's busy timeout, so it waits longer.
 */
const TICK_RETRY_MS = 100;
const STORAGE_RETRY_MS = 2_000;
/** A poll catches what no wake announced: an un-paused endpoint, a row written by another process. */
const POLL_MS = 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_FIRST_MS = 60 * 1000;

/**
 * The delivery worker (CONTRACT §9, STYLE "For Sello" 8). One loop, `tick`, does in a
 * single short transaction what would otherwise cost one commit each: it records the
 * outcomes gathered since the last tick (group commit), cancels rows of deleted
 * endpoints and claims as many due rows as there are free slots. Requests go out
 * after the commit, never inside a transaction; each outcome is written only if the
 * row still holds the lease token of its claim.
 *
 * @example
 *   const engine = createDeliveryEngine({ store, secrets, log, timeScale: 1, retentionDays: 30, userAgent: 'Sello/0.1.0' });
 *   engine.start();
 *   store.transaction(() => { insertEvent(); engine.enqueueWebhookEvent(event); });
 *   engine.wake();
 */
export function createDeliveryEngine(deps: DeliveryEngineDeps): DeliveryEngine {
  const { store, secrets, log, timeScale, userAgent } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? 64;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const drainMs = deps.drainMs ?? 5_000;
  const sender = createSender({ caFile: deps.caFile, timeoutMs, maxSockets: concurrency });

  let started = false;
  let stopping = false;
  let closed = false;
  let inFlight = 0;
  const outcomes: AttemptRecord[] = [];
  const running = new Set<Promise<void>>();
  let tickScheduled: 'now' | 'soon' | undefined;
  let tickTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  let tidyTimer: NodeJS.Timeout | undefined;

  function schedule(kind: 'now' | 'soon'): void {
    if (!started || stopping) return;
    if (tickScheduled === 'now' || (tickScheduled === 'soon' && kind === 'soon')) return;
    if (tickTimer) clearTimeout(tickTimer);
    tickScheduled = kind;
    if (kind === 'now') {
      tickTimer = undefined;
      setImmediate(tick);
    } else {
      tickTimer = setTimeout(tick, RECORD_DELAY_MS);
    }
  }

  function tick(): void {
    if (closed) return;
    tickScheduled = undefined;
    tickTimer = undefined;
    const batch = outcomes.splice(0, outcomes.length);
    const free = stopping ? 0 : concurrency - inFlight;
    let claimed: ClaimedDelivery[] = [];
    try {
      claimed = store.transaction(() => {
        const t = now();
        if (batch.length > 0) recordOutcomes(store, batch, t);
        return claimDue(store, t, free);
      });
    } catch (err) {
      // A busy, full or broken store: keep the outcomes (nothing was claimed) and try again.
      outcomes.unshift(...batch);
      const storage = isStorageFault(err);
      if (storage) log.warn('delivery postponed: the store cannot be written', { code: err.code, retryMs: STORAGE_RETRY_MS });
      else log.error('delivery tick failed', { err });
      if (!stopping) tickTimer = setTimeout(() => schedule('soon'), storage ? STORAGE_RETRY_MS : TICK_RETRY_MS);
      return;
    }
    for (const row of claimed) launch(row);
    if (!stopping) armPoll(claimed.length === free);
  }

  /** The next tick when nothing else wakes us: the next due time, at most POLL_MS away. */
  function armPoll(saturated: boolean): void {
    if (pollTimer) clearTimeout(pollTimer);
    if (saturated) return; // a finishing attempt will tick again
    let wait = POLL_MS;
    const due = nextDueAt(store);
    if (due !== undefined) wait = Math.max(0, Math.min(POLL_MS, due - now()));
    pollTimer = setTimeout(() => schedule('now'), wait);
  }

  function launch(row: ClaimedDelivery): void {
    inFlight++;
    const p: Promise<void> = attempt(row)
      .catch((err: unknown) => {
        log.error('delivery attempt crashed', { deliveryId: row.id, err });
      })
      .finally(() => {
        inFlight--;
        running.delete(p);
        schedule('soon');
      });
    running.add(p);
  }

  async function attempt(row: ClaimedDelivery): Promise<void> {
    // Right before sending: a deleted endpoint gets nothing, not even a claimed row (CONTRACT §9).
    const target = readTarget(store, row);
    const base = { deliveryId: row.id, leaseToken: row.lease_token, endpointId: row.endpoint_id };
    if (target.kind === 'cancel') {
      outcomes.push({ ...base, next: { state: 'cancelled' }, error: target.reason });
      return;
    }
    if (target.kind === 'release') {
      outcomes.push({ ...base, next: { state: 'pending', dueAt: now() } });
      return;
    }
    const body = Buffer.from(target.body, 'utf8');
    const startedAt = now();
    let result: HttpResult;
    try {
      const headers = deliveryHeaders({
        body,
        messageId: row.message_id,
        now: startedAt,
        userAgent,
        secret: target.secretSealed !== null ? secrets.open(target.secretSealed) : undefined,
        bearer: target.bearerSealed !== null ? secrets.open(target.bearerSealed) : undefined,
      });
      result = await sender.send(target.url, headers, body);
    } catch (err) {
      // A secret that no longer opens (another data folder's key): a failed attempt, said plainly.
      result = { status: null, body: null, retryAfter: undefined, durationMs: 0, error: `No se pudo preparar el envío: ${(err as Error).message}` };
    }
    if (result.interrupted) {
      // Cut by shutdown: not the receiver's fault; due again at the next start, uncounted.
      outcomes.push({ ...base, next: { state: 'pending', dueAt: now() } });
      return;
    }
    const ended = now();
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const attemptsMade = row.attempts + 1;
    const next = nextAttempt({
      schedule: schedules[row.kind],
      attemptsMade,
      outcome: ok ? { ok: true } : { ok: false, status: result.status ?? undefined, retryAfterSeconds: parseRetryAfter(result.retryAfter, ended) },
      now: ended,
      random,
      timeScale,
    });
    outcomes.push({
      ...base,
      next,
      attempt: {
        number: attemptsMade,
        attemptedAt: new Date(startedAt).toISOString(),
        url: target.url,
        status: result.status,
        durationMs: result.durationMs,
        responseBody: result.body,
        error: result.error,
      },
    });
  }

  function prune(): void {
    try {
      const removed = pruneDeliveryHistory(store, deps.retentionDays, now());
      if (removed.attempts + removed.deliveries + removed.events > 0) log.info('delivery history pruned', { retentionDays: deps.retentionDays, ...removed });
    } catch (err) {
      log.error('delivery pruning failed', { err });
    }
  }

  return {
    enqueueWebhookEvent(event) {
      return enqueueWebhookRows(store, event, now());
    },
    enqueueCallback(callback) {
      const input: CallbackInput = {
        url: callback.url,
        bearerSealed: callback.bearerToken !== undefined ? secrets.seal(callback.bearerToken) : null,
        body: callback.body,
        requestId: callback.requestId,
      };
      return enqueueCallbackRow(store, input, now());
    },
    wake() {
      schedule('now');
    },
    start() {
      if (started) return;
      started = true;
      const recovered = releaseAbandonedLeases(store, now());
      if (recovered > 0) log.warn('deliveries left sending by a previous process are due again', { count: recovered });
      pruneTimer = setTimeout(function again() {
        prune();
        pruneTimer = setTimeout(again, PRUNE_EVERY_MS);
        pruneTimer.unref();
      }, PRUNE_FIRST_MS);
      pruneTimer.unref();
      // Pending rows of a deleted endpoint are never claimed; this only shows them as cancelled.
      tidyTimer = setInterval(() => {
        try {
          cancelOrphans(store, now());
        } catch (err) {
          log.error('delivery tidy-up failed', { err });
        }
      }, 5 * POLL_MS);
      tidyTimer.unref();
      schedule('now');
    },
    async stop() {
      if (!started || stopping) return;
      stopping = true;
      for (const t of [tickTimer, pollTimer, pruneTimer, tidyTimer]) if (t) clearTimeout(t);
      const drained = Promise.all([...running]);
      const cut = new Promise<'cut'>((resolve) => setTimeout(() => resolve('cut'), drainMs).unref());
      if ((await Promise.race([drained.then(() => 'drained' as const), cut])) === 'cut') {
        sender.abortAll();
        await drained;
      }
      // Record everything gathered, then hand back any lease still held (none, normally).
      tick();
      try {
        releaseAbandonedLeases(store, now());
      } catch (err) {
        log.error('delivery leases not released', { err });
      }
      closed = true;
      sender.close();
    },
  };
}
