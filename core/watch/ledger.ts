/**
 * The ledger of watched files, the owner of `watch_ledger` (STYLE "For Sello" 6, 7): one row
 * per folder and content (UNIQUE folder_id + sha256, the cheapest "at most once"), moved
 * through `queued → signing → (waiting_pin →) done | failed` by guarded updates.
 */
import crypto from 'node:crypto';
import type { Store, WatchLedgerState, WatchLedgerTable } from '../db/index.js';

export type LedgerRow = WatchLedgerTable;

/** The row of this content in this folder. Hand-written and prepared once: asked for every file of a batch. */
export function findByContent(store: Store, folderId: string, sha256: string): LedgerRow | undefined {
  return store.statement<[string, string], LedgerRow>('select * from watch_ledger where folder_id = ? and sha256 = ?').get(folderId, sha256);
}

export function findLedger(store: Store, id: string): LedgerRow | undefined {
  return store.first(store.db.selectFrom('watch_ledger').selectAll().where('id', '=', id));
}

/** A new `queued` row; call inside the transaction that checked `findByContent`. */
export function insertQueued(store: Store, folderId: string, sha256: string, name: string, now: Date): LedgerRow {
  const iso = now.toISOString();
  const row: LedgerRow = {
    id: crypto.randomUUID(),
    folder_id: folderId,
    sha256,
    name,
    state: 'queued',
    request_id: null,
    output_name: null,
    moved_name: null,
    error_code: null,
    error: null,
    created_at: iso,
    updated_at: iso,
  };
  store.run(store.db.insertInto('watch_ledger').values(row));
  return row;
}

/** A guarded transition: `from` → `to` with `set`; true when exactly this row changed. */
export function transition(
  store: Store,
  id: string,
  from: readonly WatchLedgerState[],
  to: WatchLedgerState,
  set: Partial<Omit<LedgerRow, 'id' | 'folder_id' | 'sha256' | 'state' | 'created_at' | 'updated_at'>>,
  now: Date,
): boolean {
  return (
    store.run(
      store.db
        .updateTable('watch_ledger')
        .set({ ...set, state: to, updated_at: now.toISOString() })
        .where('id', '=', id)
        .where('state', 'in', from),
    ).changes === 1
  );
}

/** Sets fields without changing the state (a rename, the output name chosen). */
export function update(store: Store, id: string, set: Partial<Pick<LedgerRow, 'name' | 'output_name' | 'moved_name'>>, now: Date): void {
  store.run(store.db.updateTable('watch_ledger').set({ ...set, updated_at: now.toISOString() }).where('id', '=', id));
}

/** Rows not finished (`queued`, `signing`, `waiting_pin`), of one folder or all. */
export function unfinished(store: Store, folderId?: string): LedgerRow[] {
  let q = store.db.selectFrom('watch_ledger').selectAll().where('state', 'in', ['queued', 'signing', 'waiting_pin']);
  if (folderId) q = q.where('folder_id', '=', folderId);
  return store.all(q.orderBy('created_at'));
}

/** Rows per state, per folder: `{ [folderId]: { queued: 2, waiting_pin: 1 } }`. */
export function countsByFolder(store: Store): Map<string, Partial<Record<WatchLedgerState, number>>> {
  const rows = store.all(
    store.db.selectFrom('watch_ledger').select(['folder_id', 'state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['folder_id', 'state']),
  );
  const out = new Map<string, Partial<Record<WatchLedgerState, number>>>();
  for (const r of rows) {
    const counts = out.get(r.folder_id) ?? {};
    counts[r.state] = Number(r.n);
    out.set(r.folder_id, counts);
  }
  return out;
}

/**
 * Whether an unfinished row of a folder writing to `outputDir` has chosen `name` for its signed
 * copy (chosen when its request is created, written once it is signed, maybe hours later for a
 * token): another file must not take it meanwhile, even after a restart.
 */
export function outputNameTaken(store: Store, outputDir: string, name: string): boolean {
  return (
    store
      .statement<[string, string], { one: number }>(
        `select 1 as one from watch_ledger l join watched_folders f on f.id = l.folder_id
          where l.state in ('queued', 'signing', 'waiting_pin') and l.output_name = ? and f.output_dir = ? limit 1`,
      )
      .get(name, outputDir) !== undefined
  );
}
