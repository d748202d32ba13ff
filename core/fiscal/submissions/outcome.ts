/**
 * What one step of a submission came to, as plain data (the steps decide, this module knows
 * nothing of the SRI), and how it is written: the submission row and the document's status in
 * one transaction, through the documents module's own status change, so that a final state of
 * a live document writes its event and enqueues its webhooks exactly as
 * `POST /documents/:id/status` does (CONTRACT §9, §15).
 */
import type { Store } from '../../db/index.js';
import { applyStatusChange, type EventSink, type StatusChange } from '../../documents/index.js';
import type { ClaimedSubmission, Reception, SubmissionUpdate } from './store.js';
import { updateClaimed } from './store.js';

export type StepOutcome =
  /** The comprobante was built and signed: these exact bytes are what is sent, now and on every resend. */
  | { kind: 'signed'; signedXml: Buffer }
  /** The SRI has it (RECIBIDA, or DEVUELTA 43/45/70): ask the authorization at once. `note`: the SRI's messages, if any. */
  | { kind: 'sent'; reception: Reception; note: string | null }
  /** Try the same step again at `dueAt`. `unreachable`: the SRI could not be reached (the give-up clock runs). */
  | { kind: 'retry'; dueAt: number; error: string; unreachable: boolean; counted: boolean }
  /** Nothing to do until `dueAt` (a token without its PIN): not an attempt. */
  | { kind: 'wait'; dueAt: number; reason: string }
  /** Shutdown cut the step: due again at once, at the next start, uncounted. */
  | { kind: 'interrupted' }
  | { kind: 'authorized'; number: string; date: string; estado: string; xml: string }
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; reason: string };

export interface Recorded {
  /** The claim still held the row and the outcome was written. */
  written: boolean;
  /** A webhook event was enqueued: wake the delivery engine after the commit. */
  emitted: boolean;
  /** The claim goes on with the next step now (the row keeps its lease): the row as it is now. */
  next?: ClaimedSubmission;
}

/** What an outcome changes in the document (the §6 view the ERP reads), if anything. */
function documentChange(outcome: StepOutcome): StatusChange | undefined {
  switch (outcome.kind) {
    case 'signed':
    case 'sent':
      return { status: outcome.kind };
    case 'authorized':
      return { status: 'authorized', authorization: { status: outcome.estado, number: outcome.number, date: outcome.date }, xml: outcome.xml };
    case 'rejected':
    case 'failed':
      return { status: outcome.kind, failure_reason: outcome.reason };
    default:
      return undefined;
  }
}

/**
 * Inside the caller's transaction: writes `outcome` of the step run on `claimed`. When the
 * outcome leads straight to another step (signed → send, sent → ask the authorization), the
 * row stays leased and due now, so that a kill before that step simply runs it at the next
 * start; the returned `next` lets the worker go on without a new claim.
 */
export function recordOutcome(store: Store, sink: EventSink, claimed: ClaimedSubmission, outcome: StepOutcome, now: number): Recorded {
  const iso = new Date(now).toISOString();
  const keep = (u: Partial<SubmissionUpdate> & Pick<SubmissionUpdate, 'state'>): SubmissionUpdate => ({
    attempts: claimed.attempts,
    dueAt: claimed.due_at,
    leaseUntil: null,
    unreachableSince: claimed.unreachable_since,
    lastError: claimed.last_error,
    ...u,
  });
  let update: SubmissionUpdate;
  switch (outcome.kind) {
    case 'signed':
      update = keep({ state: 'signed', attempts: 0, dueAt: now, leaseUntil: claimed.lease_until, lastError: null, signedXml: outcome.signedXml });
      break;
    case 'sent':
      update = keep({ state: 'sent', attempts: 0, dueAt: now, leaseUntil: claimed.lease_until, unreachableSince: null, lastError: outcome.note, reception: outcome.reception });
      break;
    case 'retry':
      update = keep({
        state: claimed.state,
        attempts: claimed.attempts + (outcome.counted ? 1 : 0),
        dueAt: outcome.dueAt,
        unreachableSince: outcome.unreachable ? (claimed.unreachable_since ?? iso) : null,
        lastError: outcome.error,
      });
      break;
    case 'wait':
      update = keep({ state: claimed.state, dueAt: outcome.dueAt, lastError: outcome.reason });
      break;
    case 'interrupted':
      update = keep({ state: claimed.state, dueAt: now });
      break;
    case 'authorized':
      update = keep({ state: 'authorized', dueAt: null, unreachableSince: null, lastError: null, authorizationXml: outcome.xml });
      break;
    case 'rejected':
    case 'failed':
      update = keep({ state: outcome.kind, dueAt: null, lastError: outcome.reason });
      break;
  }
  if (!updateClaimed(store, claimed, update, now)) return { written: false, emitted: false };

  const change = documentChange(outcome);
  const emitted = change ? applyStatusChange(store, sink, claimed.document_id, change, new Date(now)).emitted : false;
  const goesOn = update.leaseUntil !== null;
  return {
    written: true,
    emitted,
    ...(goesOn
      ? {
          next: {
            ...claimed,
            state: update.state,
            attempts: update.attempts,
            due_at: update.dueAt,
            unreachable_since: update.unreachableSince,
            last_error: update.lastError,
            signed_xml: update.signedXml ?? claimed.signed_xml,
            reception: update.reception === undefined ? claimed.reception : update.reception,
          },
        }
      : {}),
  };
}
