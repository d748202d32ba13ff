import crypto from 'node:crypto';
import type { DeliveriesTable, DeliveryAttemptsTable, Store } from '../db/index.js';
import type { DeliveryKind, DeliveryState } from './schedule.js';
import { schedules } from './schedule.js';

/**
 * The owner of `deliveries` and `delivery_attempts` (STYLE "For Sello" 6). One
 * function per transition; every write after a claim is guarded by the lease token
 * (graphile-worker's `where id = … and locked_by = …`).
 */

export type WebhookEventType = 'document.authorized' | 'document.rejected' | 'document.failed';

/** A row as the claim returns it: what the sender needs to start an attempt. */
export interface ClaimedDelivery {
  id: string;
  kind: DeliveryKind;
  event_id: string | null;
  endpoint_id: string | null;
  url: string | null;
  bearer_sealed: string | null;
  body: string | null;
  message_id: string;
  attempts: number;
  max_attempts: number;
  lease_token: string;
}

/** Where and what to send, read right before sending. */
export type SendTarget =
  | { kind: 'send'; url: string; body: string; secretSealed: string | null; bearerSealed: string | null }
  /** The endpoint was deleted: no request, ever (CONTRACT §9). */
  | { kind: 'cancel'; reason: string }
  /** The endpoint is paused: back to the queue, not counted. */
  | { kind: 'release' };

/** What an attempt came to, ready to be written. */
export interface AttemptRecord {
  deliveryId: string;
  leaseToken: string;
  endpointId: string | null;
  /** The next state and, when pending, its due time. */
  next: { state: 'delivered' | 'failed' | 'cancelled' } | { state: 'pending'; dueAt: number };
  /** Absent when no request was made (release or cancel before sending). */
  attempt?: {
    number: number;
    attemptedAt: string;
    url: string;
    status: number | null;
    durationMs: number;
    responseBody: string | null;
    error: string | null;
  };
  error?: string | null;
}

export function enqueueWebhookRows(
  store: Store,
  event: { id: string; bookId: string; documentId: string; type: WebhookEventType },
  now: number,
): number {
  const endpoints = store
    .statement<[string], { id: string; events: string }>(
      `select id, events from webhook_endpoints
        where book_id = ? and environment = 'live' and active = 1 and deleted_at is null`,
    )
    .all(event.bookId);
  const insert = store.statement<[string, string, string, string, string, string, number, number, string, string], never>(
    `insert or ignore into deliveries
       (id, kind, event_id, endpoint_id, document_id, event_type, message_id, state, attempts, max_attempts, due_at, created_at, updated_at)
     values (?, 'webhook', ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
  );
  const iso = new Date(now).toISOString();
  let created = 0;
  for (const endpoint of endpoints) {
    const subscribed = JSON.parse(endpoint.events) as string[];
    // An empty list subscribes to every event (spec, Webhook endpoint).
    if (subscribed.length > 0 && !subscribed.includes(event.type)) continue;
    created += insert.run(
      crypto.randomUUID(),
      event.id,
      endpoint.id,
      event.documentId,
      event.type,
      event.id,
      schedules.webhook.length,
      now,
      iso,
      iso,
    ).changes;
  }
  return created;
}

/** What a signing-result callback needs (CONTRACT §9, §11; spec Events rule 6). */
export interface CallbackInput {
  url: string;
  /** Already sealed with the data folder's key (`Authorization: Bearer …` at send time). */
  bearerSealed?: string | null | undefined;
  /** The exact JSON text sent, fixed now; a retry sends the same bytes (spec Events rule 2). */
  body: string;
  /** The signing request it reports: one callback per request, ever. */
  requestId: string;
}

/** The row id of a request's callback: deterministic, so the primary key is the "at most once". */
export function callbackDeliveryId(requestId: string): string {
  return `cb_${requestId}`;
}

/**
 * Inside the caller's transaction: one callback delivery row, due now, with the callback
 * schedule's budget (5 attempts). A second call for the same request changes nothing.
 * Returns 1 when the row was written, 0 when it existed.
 */
export function enqueueCallbackRow(store: Store, input: CallbackInput, now: number): number {
  const id = callbackDeliveryId(input.requestId);
  const iso = new Date(now).toISOString();
  return store
    .statement<[string, string, string | null, string, string, number, number, string, string], never>(
      `insert or ignore into deliveries
         (id, kind, url, bearer_sealed, body, message_id, state, attempts, max_attempts, due_at, created_at, updated_at)
       values (?, 'callback', ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`,
    )
    .run(id, input.url, input.bearerSealed ?? null, input.body, id, schedules.callback.length, now, iso, iso).changes;
}

/** Crash recovery: rows a dead process left `sending` are due again, same `Webhook-Id`. */
export function releaseAbandonedLeases(store: Store, now: number): number {
  return store
    .statement<[number, string], never>(
      `update deliveries set state = 'pending', lease_token = null, due_at = min(due_at, ?), updated_at = ?
        where state = 'sending'`,
    )
    .run(now, new Date(now).toISOString()).changes;
}

/**
 * Claims up to `limit` due rows (one short write; call it inside a transaction). A
 * paused or deleted endpoint's rows are skipped: they wait (CONTRACT §9). Each row
 * gets its own random lease token, the fence for every later write.
 */
export function claimDue(store: Store, now: number, limit: number): ClaimedDelivery[] {
  if (limit <= 0) return [];
  return store
    .statement<[string, number, number], ClaimedDelivery>(
      `update deliveries set state = 'sending', lease_token = lower(hex(randomblob(12))), updated_at = ?
        where id in (
          select d.id from deliveries d left join webhook_endpoints e on e.id = d.endpoint_id
           where d.state = 'pending' and d.due_at <= ?
             and (d.endpoint_id is null or (e.active = 1 and e.deleted_at is null))
           order by d.due_at limit ?)
        returning id, kind, event_id, endpoint_id, url, bearer_sealed, body, message_id, attempts, max_attempts, lease_token`,
    )
    .all(new Date(now).toISOString(), now, limit);
}

/** The earliest due time among claimable rows, to set the next timer. */
export function nextDueAt(store: Store): number | undefined {
  const row = store
    .statement<[], { due_at: number | null }>(
      `select d.due_at from deliveries d left join webhook_endpoints e on e.id = d.endpoint_id
        where d.state = 'pending' and (d.endpoint_id is null or (e.active = 1 and e.deleted_at is null))
        order by d.due_at limit 1`,
    )
    .get();
  return row?.due_at ?? undefined;
}

/**
 * Reads the destination right before sending: the endpoint's current url and secret
 * (a PATCH or a rotation applies to retries) and the event's fixed body.
 */
export function readTarget(store: Store, row: ClaimedDelivery): SendTarget {
  if (row.kind === 'callback') {
    return { kind: 'send', url: row.url ?? '', body: row.body ?? '', secretSealed: null, bearerSealed: row.bearer_sealed };
  }
  const target = store
    .statement<[string, string], { url: string; secret_sealed: string; active: number; deleted_at: string | null; body: string | null }>(
      `select e.url, e.secret_sealed, e.active, e.deleted_at, ev.body
         from webhook_endpoints e, events ev where e.id = ? and ev.id = ?`,
    )
    .get(row.endpoint_id ?? '', row.event_id ?? '');
  if (!target || target.body === null) return { kind: 'cancel', reason: 'El evento o el destino ya no existe.' };
  if (target.deleted_at !== null) return { kind: 'cancel', reason: 'El destino fue eliminado.' };
  if (target.active !== 1) return { kind: 'release' };
  return { kind: 'send', url: target.url, body: target.body, secretSealed: target.secret_sealed, bearerSealed: null };
}

/**
 * Writes outcomes (call inside one transaction: group commit). A row whose lease has
 * moved on (re-sent by hand, cancelled) is left alone, and so is its endpoint.
 */
export function recordOutcomes(store: Store, records: readonly AttemptRecord[], now: number): void {
  const iso = new Date(now).toISOString();
  const insertAttempt = store.statement<[string, number, string, string, number | null, number, string | null, string | null], never>(
    `insert into delivery_attempts (delivery_id, number, attempted_at, url, status, duration_ms, response_body, error)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finish = store.statement<[string, number, number, string | null, number, number | null, string | null, string, string | null, string, string], never>(
    `update deliveries set state = ?, due_at = ?, attempts = attempts + ?, lease_token = null,
            last_attempt_at = coalesce(?, last_attempt_at), last_status = case when ? = 1 then ? else last_status end, last_error = ?,
            updated_at = ?, completed_at = ?
      where id = ? and lease_token = ?`,
  );
  const endpointDelivered = store.statement<[string, string, string], never>(
    "update webhook_endpoints set last_delivered_at = max(coalesce(last_delivered_at, ''), ?), last_status = ? where id = ?",
  );
  const endpointStatus = store.statement<[string, string], never>('update webhook_endpoints set last_status = ? where id = ?');
  for (const r of records) {
    const state = r.next.state;
    const dueAt = r.next.state === 'pending' ? r.next.dueAt : now;
    const final = state === 'delivered' || state === 'failed' || state === 'cancelled';
    const changed = finish.run(
      state,
      dueAt,
      r.attempt ? 1 : 0,
      r.attempt?.attemptedAt ?? null,
      r.attempt ? 1 : 0,
      r.attempt?.status ?? null,
      r.attempt ? r.attempt.error : (r.error ?? null),
      iso,
      final ? iso : null,
      r.deliveryId,
      r.leaseToken,
    ).changes;
    if (changed !== 1 || !r.attempt) continue;
    const a = r.attempt;
    insertAttempt.run(r.deliveryId, a.number, a.attemptedAt, a.url, a.status, a.durationMs, a.responseBody, a.error);
    if (r.endpointId && a.status !== null) {
      // The endpoint's last_status is the HTTP status of its last attempt (spec, Events rule 5).
      if (a.status >= 200 && a.status < 300) endpointDelivered.run(a.attemptedAt, String(a.status), r.endpointId);
      else endpointStatus.run(String(a.status), r.endpointId);
    }
  }
}

/** Pending rows of deleted endpoints will never be sent: mark them cancelled. */
export function cancelOrphans(store: Store, now: number): number {
  const iso = new Date(now).toISOString();
  return store
    .statement<[string, string], never>(
      `update deliveries set state = 'cancelled', last_error = 'El destino fue eliminado.', updated_at = ?, completed_at = ?
        where state = 'pending' and endpoint_id in (select id from webhook_endpoints where deleted_at is not null)`,
    )
    .run(iso, iso).changes;
}

/**
 * Retention (issue 3 item 8): attempts older than the cut, finished deliveries
 * (delivered, cancelled) completed before it, then events older than it that no
 * delivery references any more. Events belong to the documents module; this job is
 * the only place that deletes them, because only delivery knows when an event is done.
 */
export function pruneBefore(store: Store, cutoffIso: string): { attempts: number; deliveries: number; events: number } {
  return store.transaction(() => {
    const attempts = store.statement<[string], never>('delete from delivery_attempts where attempted_at < ?').run(cutoffIso).changes;
    const deliveries = store
      .statement<[string], never>(`delete from deliveries where state in ('delivered', 'cancelled') and completed_at < ?`)
      .run(cutoffIso).changes;
    const events = store
      .statement<[string], never>(
        `delete from events where created_at < ?
           and not exists (select 1 from deliveries d where d.event_id = events.id)`,
      )
      .run(cutoffIso).changes;
    return { attempts, deliveries, events };
  });
}

// ── admin reads and re-sends ─────────────────────────────────────────────────

export type DeliveryRow = DeliveriesTable;
export type AttemptRow = Omit<DeliveryAttemptsTable, 'id'> & { id: number };

export function getDelivery(store: Store, id: string): DeliveryRow | undefined {
  return store.first(store.db.selectFrom('deliveries').selectAll().where('id', '=', id));
}

export function listDeliveries(
  store: Store,
  filter: { endpointId?: string; state?: DeliveryState },
  page: { limit: number; offset: number },
): DeliveryRow[] {
  let q = store.db.selectFrom('deliveries').selectAll();
  if (filter.endpointId !== undefined) q = q.where('endpoint_id', '=', filter.endpointId);
  if (filter.state !== undefined) q = q.where('state', '=', filter.state);
  return store.all(q.orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset));
}

export function attemptsOf(store: Store, deliveryIds: readonly string[]): Map<string, AttemptRow[]> {
  const byDelivery = new Map<string, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows = store.all(
    store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', [...deliveryIds]).orderBy('id'),
  ) as AttemptRow[];
  for (const row of rows) byDelivery.get(row.delivery_id)?.push(row);
  return byDelivery;
}

export function endpointExists(store: Store, id: string): boolean {
  return store.first(store.db.selectFrom('webhook_endpoints').select('id').where('id', '=', id)) !== undefined;
}

/**
 * Failed → pending with a fresh budget (CONTRACT §9 "can be sent again by hand"), but
 * never towards a deleted endpoint. Returns the ids re-queued.
 */
export function resendFailed(store: Store, filter: { id?: string; endpointId?: string }, now: number): string[] {
  const iso = new Date(now).toISOString();
  let q = store.db
    .updateTable('deliveries')
    .set({ state: 'pending', attempts: 0, due_at: now, lease_token: null, completed_at: null, updated_at: iso })
    .where('state', '=', 'failed')
    .where((eb) =>
      eb.or([
        eb('endpoint_id', 'is', null),
        eb('endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('id').where('deleted_at', 'is', null)),
      ]),
    );
  if (filter.id !== undefined) q = q.where('id', '=', filter.id);
  if (filter.endpointId !== undefined) q = q.where('endpoint_id', '=', filter.endpointId);
  return store.transaction(() => store.all(q.returning('id')).map((r) => r.id));
}

/** How many deliveries are in `state` (the admin status screen's "failed deliveries"). */
export function countDeliveries(store: Store, state: DeliveryState): number {
  const row = store.first(store.db.selectFrom('deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', state));
  return Number(row?.n ?? 0);
}

/** The most recent failures, newest first: what the status screen lists as "last errors". */
export function recentFailures(store: Store, limit: number): DeliveryRow[] {
  return store.all(
    store.db.selectFrom('deliveries').selectAll().where('state', '=', 'failed').orderBy('updated_at', 'desc').limit(limit),
  ) as DeliveryRow[];
}
