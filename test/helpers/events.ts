/**
 * Document events without the documents API: inserts a live document and its event row
 * and enqueues the deliveries in one transaction, as a status change does, then wakes
 * the engine after the commit.
 *
 * @example
 *   const { eventId, documentId, committedAt } = emitEvent(agent, { type: 'document.authorized' });
 */
import crypto from 'node:crypto';
import type { Agent } from '../../core/app.js';
import type { WebhookEventType } from '../../core/delivery/index.js';

export interface EmittedEvent {
  eventId: string;
  documentId: string;
  type: WebhookEventType;
  body: string;
  enqueued: number;
  /** `Date.now()` right after the commit. */
  committedAt: number;
}

export interface EmitOptions {
  bookId: string;
  type?: WebhookEventType;
  /** Reuse a document (a second event for it). */
  documentId?: string;
  /** Skip `wake()` (to batch several events, or to test the poll). */
  noWake?: boolean;
}

function insertRows(agent: Pick<Agent, 'store' | 'delivery'>, options: EmitOptions): Omit<EmittedEvent, 'committedAt'> {
  const { store } = agent;
  const now = new Date().toISOString();
  const type = options.type ?? 'document.authorized';
  const documentId = options.documentId ?? crypto.randomUUID();
  const eventId = crypto.randomUUID();
  const numero = `001-001-${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
  if (!options.documentId) {
    store.sqlite
      .prepare(
        `insert into documents (id, book_id, environment, external_ref, country, doc_type, numero, issue_date, currency, grand_total, status, created_at, updated_at)
         values (?, ?, 'live', ?, 'EC', 'invoice', ?, '2026-11-21', 'USD', '115.00', 'pending', ?, ?)`,
      )
      .run(documentId, options.bookId, `ref-${documentId}`, numero, now, now);
  }
  const status = type.slice('document.'.length);
  store.sqlite.prepare('update documents set status = ?, updated_at = ? where id = ?').run(status, now, documentId);
  const body = JSON.stringify({
    event: type,
    sent_at: now,
    document: {
      id: documentId,
      doc_type: 'invoice',
      numero,
      access_key: null,
      status,
      issue_date: '2026-11-21',
      currency: 'USD',
      grand_total: '115.00',
      authorization: { status: status === 'authorized' ? 'AUTORIZADO' : null, number: null, date: null },
      failure_reason: status === 'failed' ? 'Sin conexión con la autoridad tributaria' : null,
    },
  });
  store.sqlite
    .prepare('insert into events (id, book_id, document_id, type, body, created_at) values (?, ?, ?, ?, ?, ?)')
    .run(eventId, options.bookId, documentId, type, body, now);
  const enqueued = agent.delivery.enqueueWebhookEvent({ id: eventId, bookId: options.bookId, documentId, type });
  return { eventId, documentId, type, body, enqueued };
}

/** One status change: its own transaction, then `wake()`. */
export function emitEvent(agent: Pick<Agent, 'store' | 'delivery'>, options: EmitOptions): EmittedEvent {
  const emitted = agent.store.transaction(() => insertRows(agent, options));
  const committedAt = Date.now();
  if (!options.noWake) agent.delivery.wake();
  return { ...emitted, committedAt };
}

/** Many status changes in one transaction (one commit), then one `wake()`. */
export function emitEvents(agent: Pick<Agent, 'store' | 'delivery'>, count: number, options: EmitOptions): EmittedEvent[] {
  const rows = agent.store.transaction(() => Array.from({ length: count }, () => insertRows(agent, options)));
  const committedAt = Date.now();
  if (!options.noWake) agent.delivery.wake();
  return rows.map((r) => ({ ...r, committedAt }));
}
