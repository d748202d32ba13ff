import type { Store } from '../db/index.js';
import { pruneBefore } from './store.js';

/**
 * Retention (issue 3 item 8): removes attempts older than `retentionDays`, delivered
 * and cancelled deliveries finished before then, and events older than then that no
 * delivery references any more. Failed and pending deliveries stay (they can still be
 * sent again). The engine runs it a minute after start and then hourly.
 *
 * @example
 *   pruneDeliveryHistory(store, 30, Date.now()); // { attempts: 120, deliveries: 40, events: 40 }
 */
export function pruneDeliveryHistory(store: Store, retentionDays: number, now: number): { attempts: number; deliveries: number; events: number } {
  return pruneBefore(store, new Date(now - retentionDays * 24 * 60 * 60 * 1000).toISOString());
}
