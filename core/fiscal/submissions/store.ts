/**
 * The owner of `fiscal_submissions` (migration 0010): one row per issued document on its
 * way to the tax authority, a durable job like a webhook delivery. A worker claims due rows by
 * setting `lease_until`; every later write of that claim is fenced by the same `lease_until`
 * value (`where document_id = ? and lease_until = ?`), so a step that outlived its lease can
 * never overwrite what a later claim recorded. The data folder is locked to one process, so
 * at start every lease left by a dead process is released (`releaseAllLeases`).
 */
import type { FiscalSubmissionState, FiscalSubmissionsTable, Store } from '../../db/index.js';
import type { ComprobanteKind } from '../sri/index.js';

export type SubmissionState = FiscalSubmissionState;

/** What `reception` may hold: the reception's verdict that put the row in `sent`. */
export type Reception = 'RECIBIDA' | '43' | '45' | '70';

/** A claimed row: what a step needs. `lease_until` is the claim's fence. */
export type ClaimedSubmission = Omit<FiscalSubmissionsTable, 'request_hash' | 'authorization_xml' | 'modifies_document_id' | 'purchase_id' | 'created_at' | 'updated_at'> & {
  lease_until: number;
};

/** The columns a claim reads (everything but the request hash, the authorization XML, the modified invoice and the withheld purchase). */
const CLAIM_COLUMNS = `document_id, book_id, environment, country, kind, computed, issuer, certificate_id, access_key, signed_xml,
  state, attempts, due_at, lease_until, unreachable_since, last_error, reception`;

export interface NewSubmission {
  documentId: string;
  bookId: string;
  environment: 'test' | 'live';
  kind: ComprobanteKind;
  requestHash: string;
  /** JSON of the computed document (ComputedInvoice, ComputedCreditNote…). */
  computed: string;
  /** JSON of the issuer as it was when the document was numbered. */
  issuer: string;
  certificateId: string;
  accessKey: string;
  /** A note's: the Sello id of the invoice it modifies. */
  modifiesDocumentId?: string | null | undefined;
  /** A withholding's: the Sello id of the purchase it withholds. */
  purchaseId?: string | null | undefined;
  /** Epoch ms: due at once. */
  now: number;
}

/** Inside the caller's transaction (the one that numbers the document): the new job, due now. */
export function insertSubmission(store: Store, s: NewSubmission): void {
  const iso = new Date(s.now).toISOString();
  store.run(
    store.db.insertInto('fiscal_submissions').values({
      document_id: s.documentId,
      book_id: s.bookId,
      environment: s.environment,
      country: 'EC',
      kind: s.kind,
      request_hash: s.requestHash,
      computed: s.computed,
      issuer: s.issuer,
      certificate_id: s.certificateId,
      access_key: s.accessKey,
      modifies_document_id: s.modifiesDocumentId ?? null,
      purchase_id: s.purchaseId ?? null,
      signed_xml: null,
      state: 'pending',
      attempts: 0,
      due_at: s.now,
      lease_until: null,
      unreachable_since: null,
      last_error: null,
      authorization_xml: null,
      reception: null,
      created_at: iso,
      updated_at: iso,
    }),
  );
}

/** At start: the leases of a process that died are void (the data folder admits one process). */
export function releaseAllLeases(store: Store): number {
  return store.statement<[], never>('update fiscal_submissions set lease_until = null where lease_until is not null').run().changes;
}

/**
 * Claims up to `limit` due rows (one short write) until `leaseUntil`. A row whose lease ran out
 * (a step that hung) may be claimed again; its old step's writes are then fenced out.
 */
export function claimDue(store: Store, now: number, limit: number, leaseUntil: number): ClaimedSubmission[] {
  if (limit <= 0) return [];
  return store
    .statement<[number, number, number, number], ClaimedSubmission>(
      `update fiscal_submissions set lease_until = ?
        where document_id in (
          select document_id from fiscal_submissions
           where due_at is not null and due_at <= ? and (lease_until is null or lease_until <= ?)
           order by due_at limit ?)
        returning ${CLAIM_COLUMNS}`,
    )
    .all(leaseUntil, now, now, limit);
}

/** The earliest due time of a row not held by a lease, to set the next timer. */
export function nextDueAt(store: Store): number | undefined {
  const row = store
    .statement<[], { due_at: number }>('select due_at from fiscal_submissions where due_at is not null and lease_until is null order by due_at limit 1')
    .get();
  return row?.due_at;
}

/** The fields of a submission a step's outcome changes; the rest stay as they are. */
export interface SubmissionUpdate {
  state: SubmissionState;
  attempts: number;
  /** Null once final. */
  dueAt: number | null;
  /** Kept (the claim goes on with the next step at once) or released (null). */
  leaseUntil: number | null;
  unreachableSince: string | null;
  lastError: string | null;
  signedXml?: Buffer;
  reception?: Reception | null;
  authorizationXml?: string;
}

/**
 * Writes `update` to the claimed row, only if the claim still holds it. Returns whether it did
 * (a false means another claim took the row meanwhile: its writes win).
 */
export function updateClaimed(store: Store, claimed: Pick<ClaimedSubmission, 'document_id' | 'lease_until'>, update: SubmissionUpdate, now: number): boolean {
  let q = store.db
    .updateTable('fiscal_submissions')
    .set({
      state: update.state,
      attempts: update.attempts,
      due_at: update.dueAt,
      lease_until: update.leaseUntil,
      unreachable_since: update.unreachableSince,
      last_error: update.lastError,
      updated_at: new Date(now).toISOString(),
    })
    .where('document_id', '=', claimed.document_id)
    .where('lease_until', '=', claimed.lease_until);
  if (update.signedXml !== undefined) q = q.set({ signed_xml: update.signedXml });
  if (update.reception !== undefined) q = q.set({ reception: update.reception });
  if (update.authorizationXml !== undefined) q = q.set({ authorization_xml: update.authorizationXml });
  return store.run(q).changes === 1;
}

/** Hands a claimed row back untouched, due at `dueAt` (a step cut by shutdown). */
export function releaseClaim(store: Store, claimed: Pick<ClaimedSubmission, 'document_id' | 'lease_until'>, dueAt: number): void {
  store
    .statement<[number, string, number], never>('update fiscal_submissions set lease_until = null, due_at = ? where document_id = ? and lease_until = ?')
    .run(dueAt, claimed.document_id, claimed.lease_until);
}

/** The submission of a document, for reads (GET /api/v1/invoices/:id, the RIDE). */
export function findSubmission(store: Store, documentId: string): FiscalSubmissionsTable | undefined {
  return store.first(store.db.selectFrom('fiscal_submissions').selectAll().where('document_id', '=', documentId));
}

/** Whether Sello issued the document (its status comes from the tax authority, not from the ERP). */
export function isIssuedDocument(store: Store, documentId: string): boolean {
  return store.statement<[string], { one: number }>('select 1 as one from fiscal_submissions where document_id = ?').get(documentId) !== undefined;
}
