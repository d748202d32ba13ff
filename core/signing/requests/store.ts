/**
 * The owner of `signing_requests`, `signing_documents` and `signing_signatures`
 * (STYLE "For Sello" 6). Transitions are guarded updates (STYLE 7): `… where status = ?`
 * and exactly one row changed.
 */
import crypto from 'node:crypto';
import type { SigningDocumentsTable, SigningRequestsTable, SigningSignaturesTable, Store } from '../../db/index.js';
import type { CheckedRequest } from './create-input.js';

export type RequestRow = SigningRequestsTable;
export type DocumentMeta = Omit<SigningDocumentsTable, 'original' | 'current'>;
export type SignatureRow = SigningSignaturesTable;

export interface FullRequest {
  request: RequestRow;
  documents: DocumentMeta[];
  signatures: SignatureRow[];
}

const DOCUMENT_META = ['id', 'request_id', 'position', 'client_id', 'title', 'notes', 'file_extension', 'original_hash', 'signed_hash'] as const;

/**
 * Stores a checked request with its documents and signatures, in the caller's transaction, and
 * returns them as stored (what `loadFull` would read back).
 */
export function insertRequest(
  store: Store,
  input: CheckedRequest,
  extra: { environment: 'test' | 'live'; bookId: string | null; bearerSealed: string | null; now: Date },
): FullRequest {
  const iso = extra.now.toISOString();
  const request: RequestRow = {
    id: crypto.randomUUID(),
    environment: extra.environment,
    status: input.send ? 'processing' : 'draft',
    type: input.type,
    subject: input.subject,
    reference_id: input.referenceId,
    book_id: extra.bookId,
    callback_url: input.callbackUrl,
    callback_bearer_sealed: extra.bearerSealed,
    created_at: iso,
    sent_at: input.send ? iso : null,
    signed_at: null,
    failed_at: null,
    updated_at: iso,
  };
  store.run(store.db.insertInto('signing_requests').values(request));
  const documents: DocumentMeta[] = [];
  const signatures: SignatureRow[] = [];
  input.documents.forEach((doc, position) => {
    const document: DocumentMeta = {
      id: crypto.randomUUID(),
      request_id: request.id,
      position,
      client_id: doc.clientId,
      title: doc.title,
      notes: doc.notes,
      file_extension: doc.fileExtension,
      original_hash: doc.sha256,
      signed_hash: null,
    };
    store.run(store.db.insertInto('signing_documents').values({ ...document, original: doc.pdf, current: null }));
    documents.push(document);
    for (const sig of doc.signatures) {
      const signature: SignatureRow = {
        id: crypto.randomUUID(),
        request_id: request.id,
        document_id: document.id,
        position: signatures.length,
        certificate_id: sig.certificateId,
        page: sig.page,
        size: sig.size,
        x: sig.x,
        y: sig.y,
        state: 'pending',
        attempts: 0,
        last_error_code: null,
        last_error: null,
        pin_tries: null,
        signed_at: null,
        updated_at: iso,
      };
      store.run(store.db.insertInto('signing_signatures').values(signature));
      signatures.push(signature);
    }
  });
  return { request, documents, signatures };
}

export function referenceTaken(store: Store, environment: 'test' | 'live', referenceId: string): boolean {
  return (
    store.first(
      store.db.selectFrom('signing_requests').select('id').where('environment', '=', environment).where('reference_id', '=', referenceId),
    ) !== undefined
  );
}

export function findRequest(store: Store, id: string): RequestRow | undefined {
  return store.first(store.db.selectFrom('signing_requests').selectAll().where('id', '=', id));
}

export function findByReference(store: Store, environment: 'test' | 'live', referenceId: string): RequestRow | undefined {
  return store.first(
    store.db.selectFrom('signing_requests').selectAll().where('environment', '=', environment).where('reference_id', '=', referenceId),
  );
}

/** The request with its documents (without bytes) and signatures, in order. */
export function loadFull(store: Store, id: string): FullRequest | undefined {
  const request = findRequest(store, id);
  if (!request) return undefined;
  const documents = store.all(store.db.selectFrom('signing_documents').select(DOCUMENT_META).where('request_id', '=', id).orderBy('position'));
  const signatures = store.all(store.db.selectFrom('signing_signatures').selectAll().where('request_id', '=', id).orderBy('position'));
  return { request, documents, signatures };
}

/** `draft` → `processing` (CONTRACT §11). False when the request was not a draft. */
export function markSent(store: Store, id: string, now: Date): boolean {
  const iso = now.toISOString();
  return (
    store.run(
      store.db.updateTable('signing_requests').set({ status: 'processing', sent_at: iso, updated_at: iso }).where('id', '=', id).where('status', '=', 'draft'),
    ).changes === 1
  );
}

/** The bytes to download: the original, or the signed file once the request is signed. */
export function documentBytes(store: Store, requestId: string, documentId: string, which: 'original' | 'signed'): Buffer | null | undefined {
  const row = store.first(
    store.db
      .selectFrom('signing_documents as d')
      .innerJoin('signing_requests as r', 'r.id', 'd.request_id')
      .select(['d.original', 'd.current', 'r.status'])
      .where('d.id', '=', documentId)
      .where('d.request_id', '=', requestId),
  );
  if (!row) return undefined;
  if (which === 'original') return row.original;
  return row.status === 'signed' ? row.current : null;
}

// ── the worker's reads and writes ────────────────────────────────────────────

export function processingRequestIds(store: Store): string[] {
  return store.all(store.db.selectFrom('signing_requests').select('id').where('status', '=', 'processing').orderBy('created_at')).map((r) => r.id);
}

/** The first signature not yet applied, in request order; undefined when all are. */
export function nextSignature(store: Store, requestId: string): SignatureRow | undefined {
  return store.first(
    store.db.selectFrom('signing_signatures').selectAll().where('request_id', '=', requestId).where('state', '!=', 'signed').orderBy('position').limit(1),
  );
}

/** The PDF a signature is applied to: the document as signed so far. */
export function currentPdf(store: Store, documentId: string): Buffer {
  const row = store.first(store.db.selectFrom('signing_documents').select(['original', 'current']).where('id', '=', documentId));
  if (!row) throw new Error(`signing document ${documentId} vanished`);
  return row.current ?? row.original;
}

/**
 * One signature applied: the new PDF and the signature's state in one transaction (call
 * inside one), guarded by `state = 'pending'`. A crash before the commit leaves the
 * previous PDF and a pending signature: the work is redone, nothing is half-written.
 */
export function recordSigned(store: Store, signature: SignatureRow, pdf: Buffer, signedAt: Date): boolean {
  const iso = signedAt.toISOString();
  const changed = store.run(
    store.db
      .updateTable('signing_signatures')
      .set({ state: 'signed', signed_at: iso, last_error: null, last_error_code: null, updated_at: iso })
      .where('id', '=', signature.id)
      .where('state', '=', 'pending'),
  ).changes;
  if (changed !== 1) return false;
  store.run(store.db.updateTable('signing_documents').set({ current: pdf }).where('id', '=', signature.document_id));
  return true;
}

export function recordAttempt(store: Store, signatureId: string, now: Date): void {
  store.run(
    store.db
      .updateTable('signing_signatures')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: now.toISOString() }))
      .where('id', '=', signatureId),
  );
}

export function recordFailure(store: Store, signatureId: string, failure: { code: string; message: string; pinTries: string | null }, now: Date): void {
  store.run(
    store.db
      .updateTable('signing_signatures')
      .set({ last_error_code: failure.code, last_error: failure.message, pin_tries: failure.pinTries, updated_at: now.toISOString() })
      .where('id', '=', signatureId)
      .where('state', '=', 'pending'),
  );
}

/** Every document's signed bytes, for the hashes and the callback (inside the finishing transaction). */
export function signedDocuments(store: Store, requestId: string): Array<DocumentMeta & { pdf: Buffer }> {
  return store
    .all(store.db.selectFrom('signing_documents').selectAll().where('request_id', '=', requestId).orderBy('position'))
    .map(({ original, current, ...meta }) => ({ ...meta, pdf: current ?? original }));
}

/** `processing` → `signed` with the hashes, guarded. */
export function markSigned(store: Store, requestId: string, hashes: ReadonlyMap<string, string>, now: Date): boolean {
  const iso = now.toISOString();
  const changed = store.run(
    store.db.updateTable('signing_requests').set({ status: 'signed', signed_at: iso, updated_at: iso }).where('id', '=', requestId).where('status', '=', 'processing'),
  ).changes;
  if (changed !== 1) return false;
  for (const [documentId, hash] of hashes) {
    store.run(store.db.updateTable('signing_documents').set({ signed_hash: hash }).where('id', '=', documentId));
  }
  return true;
}

// ── approvals ────────────────────────────────────────────────────────────────

export function findSignature(store: Store, id: string): SignatureRow | undefined {
  return store.first(store.db.selectFrom('signing_signatures').selectAll().where('id', '=', id));
}

/** Pending signatures of processing requests, with what the admin list shows. */
export function pendingSignatures(store: Store) {
  return store.all(
    store.db
      .selectFrom('signing_signatures as s')
      .innerJoin('signing_requests as r', 'r.id', 's.request_id')
      .innerJoin('signing_documents as d', 'd.id', 's.document_id')
      .leftJoin('certificates as c', 'c.id', 's.certificate_id')
      .select([
        's.id', 's.request_id', 's.document_id', 's.position', 's.certificate_id', 's.page', 's.state', 's.attempts',
        's.last_error_code', 's.last_error', 's.pin_tries', 's.updated_at',
        'r.subject', 'r.environment', 'r.reference_id', 'd.title',
        'c.source', 'c.subject_name', 'c.token_serial', 'c.token_label', 'c.token_module',
      ])
      .where('r.status', '=', 'processing')
      .where('s.state', '=', 'pending')
      .orderBy('r.created_at')
      .orderBy('s.position'),
  );
}

/** Pending → rejected (the request stays `processing`; docs/signing-requests.md). */
export function markRejected(store: Store, signatureId: string, now: Date): boolean {
  return (
    store.run(
      store.db.updateTable('signing_signatures').set({ state: 'rejected', updated_at: now.toISOString() }).where('id', '=', signatureId).where('state', '=', 'pending'),
    ).changes === 1
  );
}

// ── final failures ───────────────────────────────────────────────────────────

/**
 * A pending signature ended by a failure no approval can fix (docs/signing-requests.md):
 * `failed`, with its code and Spanish message. Guarded by `state = 'pending'`.
 */
export function markSignatureFailed(store: Store, signatureId: string, failure: { code: string; message: string }, now: Date): boolean {
  return (
    store.run(
      store.db
        .updateTable('signing_signatures')
        .set({ state: 'failed', last_error_code: failure.code, last_error: failure.message, updated_at: now.toISOString() })
        .where('id', '=', signatureId)
        .where('state', '=', 'pending'),
    ).changes === 1
  );
}

/** `processing` → `failed`, guarded: never resumed at start, never signed. */
export function markRequestFailed(store: Store, requestId: string, now: Date): boolean {
  const iso = now.toISOString();
  return (
    store.run(
      store.db.updateTable('signing_requests').set({ status: 'failed', failed_at: iso, updated_at: iso }).where('id', '=', requestId).where('status', '=', 'processing'),
    ).changes === 1
  );
}

/** The documents of a request without their bytes, in order (for the failure callback). */
export function documentsOf(store: Store, requestId: string): DocumentMeta[] {
  return store.all(store.db.selectFrom('signing_documents').select(DOCUMENT_META).where('request_id', '=', requestId).orderBy('position'));
}

export function clearFailure(store: Store, signatureId: string): void {
  store.run(store.db.updateTable('signing_signatures').set({ last_error: null, last_error_code: null }).where('id', '=', signatureId).where('state', '=', 'pending'));
}
