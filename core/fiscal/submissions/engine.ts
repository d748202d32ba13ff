/**
 * The submission worker (CONTRACT §15 "Lifecycle"): takes issued documents from `pending` to
 * `authorized`, `rejected` or `failed`, one step per state (sign-step, send-step,
 * authorize-step), as webhook deliveries are taken to `delivered` (core/delivery/engine.ts):
 * due rows are claimed with a lease in one short write, the network calls run outside any
 * transaction, and each step's outcome is committed (with the document's status and, for a
 * final state of a live document, its event and webhooks) before the next network call. A
 * claim whose step leads straight to the next (signed → send → ask the authorization) keeps its
 * row and goes on, so an invoice is signed, sent and authorized without waiting for a poll.
 *
 * Crash safety comes from that order: a kill before a step's commit runs the step again at the
 * next start; a kill between the send and its record resends the same signed bytes, and the
 * SRI's 43/70 answer leads to the authorization, never to a new number.
 *
 * Outcomes are written with `store.batch`: the steps finishing in one turn of the event loop
 * share one commit (one fsync), which is what lets a burst of invoices go through at speed.
 *
 * @example
 *   const submissions = createSubmissionEngine({ store, sink: delivery, secrets, pins, log, settings });
 *   submissions.start();
 *   // after the transaction that numbered a new invoice:
 *   submissions.wake();
 */
import { isStorageFault, type Store } from '../../db/index.js';
import type { EventSink } from '../../documents/index.js';
import type { Logger } from '../../log/index.js';
import type { SecretBox } from '../../secrets/index.js';
import type { PinCache } from '../../signing/requests/index.js';
import type { XmlHash } from '../../xml/index.js';
import { createSriClient, type SriClient } from '../sri/index.js';
import { authorizeStep } from './authorize-step.js';
import { createIssuerKeys } from './issuer-keys.js';
import { recordOutcome, type StepOutcome } from './outcome.js';
import { sendStep, type SriStepDeps } from './send-step.js';
import { signStep } from './sign-step.js';
import { claimDue, nextDueAt, releaseAllLeases, releaseClaim, type ClaimedSubmission } from './store.js';
import { dueNowOnToken } from './waiting-on-token.js';

export interface SubmissionEngine {
  /** After the commit of a new document (or a PIN given): run due steps now, not at the next poll. */
  wake(): void;
  /** Releases the leases a dead process left and starts claiming. */
  start(): void;
  /** Stops claiming; lets the steps in flight finish (bounded), records them. */
  stop(): Promise<void>;
}

export interface SubmissionSettings {
  sriTestUrl: string;
  sriProductionUrl: string;
  /** `SELLO_SRI_SIGNATURE_HASH` */
  signatureHash: XmlHash;
  /** `SELLO_SRI_GIVE_UP_HOURS` */
  giveUpHours: number;
  /** `SELLO_DELIVERY_TIME_SCALE`: multiplies every delay of the schedule. */
  timeScale: number;
  /** `SELLO_CA_FILE`, trusted for the SRI's HTTPS as for webhooks. */
  caFile?: string | undefined;
}

export interface SubmissionEngineDeps {
  store: Store;
  /** Where final states of live documents enqueue their webhooks (the delivery engine). */
  sink: EventSink;
  secrets: SecretBox;
  pins: PinCache;
  log: Logger;
  settings: SubmissionSettings;
  /** Tests give a client with short timeouts. */
  sri?: SriClient;
  now?: () => number;
  random?: () => number;
  /** Submissions worked on at once. */
  concurrency?: number;
  /** How long `stop()` waits for steps in flight before cutting the SRI calls. */
  drainMs?: number;
}

/** A claim is held this long: beyond the SRI client's whole-call timeout (60 s) and a slow token. */
const LEASE_MS = 5 * 60_000;
/** A poll catches what no wake announced (a retry's due time, a PIN remembered by another screen). */
const POLL_MS = 1000;
const STORAGE_RETRY_MS = 2_000;
const TICK_RETRY_MS = 100;

export function createSubmissionEngine(deps: SubmissionEngineDeps): SubmissionEngine {
  const { store, sink, log, settings } = deps;
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const concurrency = deps.concurrency ?? 16;
  const drainMs = deps.drainMs ?? 5_000;
  const sri = deps.sri ?? createSriClient({ caFile: settings.caFile, maxSockets: concurrency });
  const keys = createIssuerKeys({ secrets: deps.secrets, pins: deps.pins });
  const sriDeps: SriStepDeps = {
    sri,
    urls: { sriTestUrl: settings.sriTestUrl, sriProductionUrl: settings.sriProductionUrl },
    timeScale: settings.timeScale,
    giveUpHours: settings.giveUpHours,
    now,
    random,
  };
  const signDeps = { store, keys, hash: settings.signatureHash, timeScale: settings.timeScale, now };

  let started = false;
  let stopping = false;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  let tickQueued = false;
  let tickTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;

  function schedule(): void {
    if (!started || stopping || tickQueued) return;
    tickQueued = true;
    setImmediate(tick);
  }

  function tick(): void {
    tickQueued = false;
    if (stopping) return;
    const free = concurrency - inFlight;
    let claimed: ClaimedSubmission[] = [];
    try {
      const t = now();
      claimed = store.transaction(() => claimDue(store, t, free, t + LEASE_MS));
    } catch (err) {
      const storage = isStorageFault(err);
      if (storage) log.warn('fiscal submissions postponed: the store cannot be written', { code: err.code, retryMs: STORAGE_RETRY_MS });
      else log.error('fiscal submission tick failed', { err });
      tickTimer = setTimeout(schedule, storage ? STORAGE_RETRY_MS : TICK_RETRY_MS);
      return;
    }
    for (const row of claimed) launch(row);
    armPoll(claimed.length === free);
  }

  /** The next tick when nothing wakes the engine: the next due time, at most POLL_MS away. */
  function armPoll(saturated: boolean): void {
    if (pollTimer) clearTimeout(pollTimer);
    if (saturated) return; // a finishing claim will tick again
    let wait = POLL_MS;
    try {
      const due = nextDueAt(store);
      if (due !== undefined) wait = Math.max(0, Math.min(POLL_MS, due - now()));
    } catch {
      // read again at the next poll
    }
    pollTimer = setTimeout(schedule, wait);
  }

  function launch(row: ClaimedSubmission): void {
    inFlight++;
    const p: Promise<void> = work(row)
      .catch((err: unknown) => {
        // Its lease runs out and the row is claimed again: nothing is lost.
        log.error('fiscal submission step crashed', { documentId: row.document_id, err });
      })
      .finally(() => {
        inFlight--;
        running.delete(p);
        schedule();
      });
    running.add(p);
  }

  function step(row: ClaimedSubmission): Promise<StepOutcome> {
    switch (row.state) {
      case 'pending':
        return signStep(row, signDeps);
      case 'signed':
        return sendStep(row, sriDeps);
      case 'sent':
        return authorizeStep(row, sriDeps);
      default:
        // A final row with a due time (a hand-edited store): nothing to do.
        return Promise.resolve({ kind: 'wait', dueAt: Number.MAX_SAFE_INTEGER, reason: row.last_error ?? '' });
    }
  }

  /** Runs the steps of one claim until one leaves the row waiting (or final). */
  async function work(first: ClaimedSubmission): Promise<void> {
    let row: ClaimedSubmission | undefined = first;
    while (row) {
      if (stopping) {
        const held: ClaimedSubmission = row;
        await store.batch(() => releaseClaim(store, held, now()));
        return;
      }
      const outcome = await step(row);
      const current: ClaimedSubmission = row;
      let recorded;
      try {
        recorded = await store.batch(() => recordOutcome(store, sink, current, outcome, now()));
      } catch (err) {
        // A full or locked store: the outcome is not recorded; the lease is left to run out and
        // the step runs again then (a resend is answered 43/70, never numbered again).
        if (isStorageFault(err)) log.warn('fiscal submission outcome not recorded: the store cannot be written', { documentId: row.document_id, code: err.code });
        throw err;
      }
      if (recorded.emitted) sink.wake();
      if (recorded.written) logOutcome(current, outcome);
      row = recorded.next;
    }
  }

  function logOutcome(row: ClaimedSubmission, outcome: StepOutcome): void {
    const facts = { documentId: row.document_id, accessKey: row.access_key };
    if (outcome.kind === 'failed' || outcome.kind === 'rejected') log.warn(`fiscal document ${outcome.kind}`, { ...facts, reason: outcome.reason });
    else if (outcome.kind === 'retry') log.warn('fiscal submission will be tried again', { ...facts, state: row.state, error: outcome.error, dueAt: new Date(outcome.dueAt).toISOString() });
    else if (outcome.kind === 'authorized') log.info('fiscal document authorized', facts);
  }

  return {
    wake: schedule,
    start() {
      if (started) return;
      started = true;
      const released = releaseAllLeases(store);
      if (released > 0) log.warn('fiscal submissions left under way by a previous process are due again', { count: released });
      // A PIN given anywhere (the fiscal PIN route, a signing request's approval): that token's
      // documents go on now, not at their next check.
      stopListening = deps.pins.onSet((serial) => {
        try {
          if (dueNowOnToken(store, serial, now()) > 0) schedule();
        } catch (err) {
          log.warn('fiscal documents of a token could not be made due; they go on at their next check', { err });
        }
      });
      schedule();
    },
    async stop() {
      if (!started || stopping) return;
      stopping = true;
      stopListening?.();
      for (const t of [tickTimer, pollTimer]) if (t) clearTimeout(t);
      const drained = Promise.all([...running]);
      const cut = new Promise<'cut'>((resolve) => setTimeout(() => resolve('cut'), drainMs).unref());
      if ((await Promise.race([drained.then(() => 'drained' as const), cut])) === 'cut') {
        sri.abortAll();
        await drained;
      }
      sri.close();
    },
  };
}
