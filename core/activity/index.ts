/**
 * The activity log of the admin UI (CONTRACT §14): a read-only view over what other
 * modules record — document events and signing requests — newest first. It writes
 * nothing; the owners of `events` and `signing_requests` stay their only writers.
 *
 * @example
 *   recentActivity(store, { bookId, type: 'signing', limit: 50 });
 *   // select … from events where book_id = ? order by created_at desc limit 50 (+ signing_requests)
 */
import type { Store } from '../db/index.js';

export type ActivityType = 'event' | 'signing';

export interface ActivityItem {
  type: ActivityType;
  id: string;
  book_id: string | null;
  /** `document.authorized` for events; the request's status for signing requests. */
  name: string;
  /** The document or the request's subject. */
  subject: string;
  at: string;
}

export function recentActivity(store: Store, filter: { bookId?: string; type?: ActivityType; limit: number }): ActivityItem[] {
  const items: ActivityItem[] = [];
  if (filter.type !== 'signing') {
    let q = store.db.selectFrom('events').select(['id', 'book_id', 'type', 'document_id', 'created_at']).orderBy('created_at', 'desc').limit(filter.limit);
    if (filter.bookId) q = q.where('book_id', '=', filter.bookId);
    for (const r of store.all(q)) items.push({ type: 'event', id: r.id, book_id: r.book_id, name: r.type, subject: r.document_id, at: r.created_at });
  }
  if (filter.type !== 'event') {
    let q = store.db
      .selectFrom('signing_requests')
      .select(['id', 'book_id', 'status', 'subject', 'updated_at'])
      .orderBy('updated_at', 'desc')
      .limit(filter.limit);
    if (filter.bookId) q = q.where('book_id', '=', filter.bookId);
    for (const r of store.all(q)) items.push({ type: 'signing', id: r.id, book_id: r.book_id, name: `signing.${r.status}`, subject: r.subject, at: r.updated_at });
  }
  return items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, filter.limit);
}
