import crypto from 'node:crypto';
import type { Caller } from '../auth/index.js';
import type { DocumentsTable, Store } from '../db/index.js';
import { SelloError, fieldMessages } from '../errors/index.js';
import { pdfBytesProblem } from './pdf-input.js';
import { accessKeyProblem } from './access-key.js';
import type { ChangeStatusInput, CreateDocumentInput } from './schemas.js';

export type BookCaller = Extract<Caller, { family: 'b' }>;
export type DocumentStatus = DocumentsTable['status'];

/** Where status changes of live documents go: the delivery engine (CONTRACT §9). */
export interface EventSink {
  /** Called inside the status change's transaction. */
  enqueueWebhookEvent(event: { id: string; bookId: string; documentId: string; type: WebhookEventType }): number;
  /** Called after the commit, so that delivery starts without waiting for a poll. */
  wake(): void;
}

export type WebhookEventType = 'document.authorized' | 'document.rejected' | 'document.failed';

/** The document as the API shows it. */
export interface DocumentView {
  id: string;
  external_ref: string;
  environment: 'test' | 'live';
  country: 'EC' | 'PE';
  doc_type: string;
  numero: string;
  access_key: string | null;
  issue_date: string;
  currency: string;
  grand_total: string;
  status: DocumentStatus;
  authorization: { status: string | null; number: string | null; date: string | null } | null;
  failure_reason: string | null;
  has_pdf: boolean;
  has_xml: boolean;
  created_at: string;
  updated_at: string;
}

type Row = Omit<DocumentsTable, 'pdf' | 'xml'> & { has_pdf: number; has_xml: number };

const viewColumns = `id, book_id, environment, external_ref, country, doc_type, numero, access_key, issue_date, currency,
  grand_total, status, authorization_status, authorization_number, authorization_date, failure_reason,
  created_at, updated_at, pdf is not null as has_pdf, xml is not null as has_xml`;

export function toDocumentView(row: Row): DocumentView {
  const hasAuthorization = row.authorization_status !== null || row.authorization_number !== null || row.authorization_date !== null;
  return {
    id: row.id,
    external_ref: row.external_ref,
    environment: row.environment,
    country: row.country,
    doc_type: row.doc_type,
    numero: row.numero,
    access_key: row.access_key,
    issue_date: row.issue_date,
    currency: row.currency,
    grand_total: row.grand_total,
    status: row.status,
    authorization: hasAuthorization
      ? { status: row.authorization_status, number: row.authorization_number, date: row.authorization_date }
      : null,
    failure_reason: row.failure_reason,
    has_pdf: row.has_pdf === 1,
    has_xml: row.has_xml === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function invalid(fields: Record<string, string[]>): SelloError {
  return new SelloError('validation_failed', { fields });
}

/** Checks what the schema can't: the access key and the PDF. Returns the decoded PDF. */
export function checkDocumentInput(input: CreateDocumentInput, environment: 'test' | 'live'): Buffer | null {
  const fields = fieldMessages();
  if (input.access_key !== undefined && input.country === 'EC') {
    const problem = accessKeyProblem(input.access_key, environment);
    if (problem) {
      fields.access_key = [
        {
          digits: 'debe tener solo dígitos',
          length: `debe tener 49 dígitos; tiene ${input.access_key.length}`,
          check_digit: 'el dígito verificador (módulo 11) no corresponde: revise la clave de acceso',
          environment:
            environment === 'live'
              ? 'es de ambiente de pruebas (dígito 24 = 1) y la clave de API es de producción'
              : 'es de ambiente de producción (dígito 24 = 2) y la clave de API es de pruebas',
        }[problem],
      ];
    }
  }
  let pdf: Buffer | null = null;
  if (input.pdf_base64 !== undefined) {
    const result = pdfBytesProblem(input.pdf_base64);
    if (typeof result === 'string') fields.pdf_base64 = [result];
    else pdf = result;
  }
  if (Object.keys(fields).length > 0) throw invalid(fields);
  return pdf;
}

export interface Documents {
  create(caller: BookCaller, input: CreateDocumentInput, pdf: Buffer | null): DocumentView;
  get(caller: BookCaller, id: string): DocumentView;
  xml(caller: BookCaller, id: string): string;
  changeStatus(caller: BookCaller, id: string, input: ChangeStatusInput): DocumentView;
  /** For Family A downloads: any book's document of the key's environment. */
  findForAccount(environment: 'test' | 'live', id: string): (DocumentView & { pdf: Buffer | null }) | undefined;
}

/** Which changes are allowed: `authorized` is final; `rejected` and `failed` can be sent again. */
function assertTransition(from: DocumentStatus, to: DocumentStatus): void {
  if (from === 'authorized' && to !== 'authorized') {
    throw invalid({ status: ['el documento ya está autorizado; una autorización no se revierte'] });
  }
}

/**
 * The owner of `documents` and `events`. A status change of a live document writes
 * its event and, through the sink, one delivery per subscribed endpoint, all in one
 * transaction (CONTRACT §9); test documents emit nothing (spec, Events rule 1).
 */
export function createDocuments(store: Store, sink: EventSink): Documents {
  const byId = store.statement<[string, string, string], Row>(
    `select ${viewColumns} from documents where id = ? and book_id = ? and environment = ?`,
  );
  const find = (caller: BookCaller, id: string): Row | undefined => byId.get(id, caller.book.id, caller.environment);

  const notFound = (id: string) => new SelloError('not_found', { detail: `No existe el documento ${id} en este libro.`, detailEn: `There is no document ${id} in this book.` });

  return {
    create(caller, input, pdf) {
      const now = new Date().toISOString();
      const id = crypto.randomUUID();
      store.run(
        store.db.insertInto('documents').values({
          id,
          book_id: caller.book.id,
          environment: caller.environment,
          external_ref: input.external_ref,
          country: input.country,
          doc_type: input.doc_type,
          numero: input.numero,
          access_key: input.access_key ?? null,
          issue_date: input.issue_date,
          currency: input.currency,
          grand_total: input.grand_total,
          status: 'pending',
          pdf,
          xml: input.xml ?? null,
          created_at: now,
          updated_at: now,
        }),
      );
      return toDocumentView(find(caller, id)!);
    },

    get(caller, id) {
      const row = find(caller, id);
      if (!row) throw notFound(id);
      return toDocumentView(row);
    },

    xml(caller, id) {
      const row = store.first(
        store.db.selectFrom('documents').select('xml').where('id', '=', id).where('book_id', '=', caller.book.id).where('environment', '=', caller.environment),
      );
      if (!row) throw notFound(id);
      if (row.xml === null) throw new SelloError('not_ready');
      return row.xml;
    },

    changeStatus(caller, id, input) {
      if (input.status === 'authorized' && !input.authorization) {
        throw invalid({ authorization: ['es obligatoria para el estado authorized: {status, number, date}'] });
      }
      const outcome = store.transaction(() => {
        if (!find(caller, id)) throw notFound(id);
        return applyStatusChange(store, sink, id, {
          status: input.status,
          authorization: input.authorization,
          failure_reason: input.failure_reason,
        }, new Date());
      });
      if (outcome.emitted) sink.wake();
      return outcome.view;
    },

    findForAccount(environment, id) {
      const row = store.first(
        store.db
          .selectFrom('documents')
          .selectAll()
          .select((eb) => [eb.lit(1).as('has_pdf'), eb.lit(1).as('has_xml')])
          .where('id', '=', id)
          .where('environment', '=', environment),
      );
      if (!row) return undefined;
      const { pdf, xml, ...rest } = row;
      return { ...toDocumentView({ ...rest, has_pdf: pdf ? 1 : 0, has_xml: xml !== null ? 1 : 0 }), pdf };
    },
  };
}

/** The statuses that end a document's life and emit `document.<status>` for live documents. */
const FINAL_STATUSES: ReadonlySet<DocumentStatus> = new Set(['authorized', 'rejected', 'failed']);

/** A change of a document's status, as `POST /documents/:id/status` or the submission job (core/fiscal) asks it. */
export interface StatusChange {
  status: DocumentStatus;
  /** `date` is any ISO 8601 date-time; it is stored in UTC. */
  authorization?: { status: string; number: string; date: string } | undefined;
  /** Undefined: kept as it is (cleared by `authorized`); null: cleared. */
  failure_reason?: string | null | undefined;
  /** The document's XML (the SRI's `autorizacion` of an issued invoice), when it changes. */
  xml?: string | undefined;
}

/**
 * Inside the caller's transaction: applies `change` to document `id` (already found and scoped
 * by the caller). When a live document's status becomes final, its event row is written and
 * `sink` enqueues the deliveries, in the same transaction (CONTRACT §9); test documents emit
 * nothing. `emitted`: the caller wakes the sink after its commit. The one code path of status
 * changes, for the ERP's `POST /documents/:id/status` and for Sello's own submissions.
 */
export function applyStatusChange(store: Store, sink: EventSink, id: string, change: StatusChange, now: Date): { view: DocumentView; emitted: boolean } {
  const byId = store.statement<[string], Row>(`select ${viewColumns} from documents where id = ?`);
  const row = byId.get(id);
  if (!row) throw new SelloError('not_found', { detail: `No existe el documento ${id}.`, detailEn: `There is no document ${id}.` });
  assertTransition(row.status, change.status);
  const authorization = change.authorization;
  const changes = {
    status: change.status,
    authorization_status: authorization?.status ?? row.authorization_status,
    authorization_number: authorization?.number ?? row.authorization_number,
    authorization_date: authorization ? new Date(authorization.date).toISOString() : row.authorization_date,
    failure_reason: change.failure_reason === undefined ? (change.status === 'authorized' ? null : row.failure_reason) : change.failure_reason,
  };
  const unchanged =
    change.xml === undefined &&
    row.status === changes.status &&
    row.authorization_status === changes.authorization_status &&
    row.authorization_number === changes.authorization_number &&
    row.authorization_date === changes.authorization_date &&
    row.failure_reason === changes.failure_reason;
  if (unchanged) return { view: toDocumentView(row), emitted: false };
  store.run(
    store.db
      .updateTable('documents')
      .set({ ...changes, ...(change.xml !== undefined ? { xml: change.xml } : {}), updated_at: now.toISOString() })
      .where('id', '=', id),
  );
  const updated = byId.get(id)!;
  let emitted = false;
  if (updated.environment === 'live' && row.status !== change.status && FINAL_STATUSES.has(change.status)) {
    const type = `document.${change.status}` as WebhookEventType;
    const event = { id: crypto.randomUUID(), bookId: updated.book_id, documentId: id, type };
    store.run(
      store.db.insertInto('events').values({
        id: event.id,
        book_id: event.bookId,
        document_id: id,
        type,
        body: webhookBody(type, updated, now),
        created_at: now.toISOString(),
      }),
    );
    sink.enqueueWebhookEvent(event);
    emitted = true;
  }
  return { view: toDocumentView(updated), emitted };
}

/**
 * The spec's Document webhook body, serialized once: every delivery and every retry
 * sends exactly these bytes (spec, Events rule 2).
 */
export function webhookBody(type: WebhookEventType, row: Row, at: Date): string {
  return JSON.stringify({
    event: type,
    sent_at: at.toISOString(),
    document: {
      id: row.id,
      doc_type: row.doc_type,
      numero: row.numero,
      access_key: row.access_key,
      status: row.status,
      issue_date: row.issue_date,
      currency: row.currency,
      grand_total: row.grand_total,
      authorization: {
        status: row.authorization_status,
        number: row.authorization_number,
        date: row.authorization_date,
      },
      failure_reason: row.failure_reason,
    },
  });
}
