/**
 * `.p12` files sealed at rest (issue 15). Imports seal the file (registry.ts); stores written
 * by earlier versions kept it as imported, in clear, so that a copy of `sello.db` alone allowed
 * an offline attack on its password. Migration 0008 adds the sealed column; sealing needs the
 * data folder's key, which migrations do not have, so it happens here, when the data folder is
 * opened (core/app.ts `openDataStore`), before anything reads the store.
 */
import type { Store } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';

/**
 * Seals every `.p12` still in clear and empties its clear column; returns how many. One
 * transaction: a crash leaves every row as it was, or every row sealed. Idempotent: a second
 * run (or a `sello` command opening the store at the same time) finds nothing left.
 *
 * The clear bytes must not stay in the file either: SQLite leaves deleted content in free pages
 * and in the write-ahead log until they are reused, so the update runs with `secure_delete`
 * (what it frees is overwritten with zeros), and the log is checkpointed into the store and
 * truncated after it.
 *
 * `secrets` is called only when there is something to seal: opening a store that never held a
 * `.p12` does not create the data folder's key.
 */
export function sealStoredP12(store: Store, secrets: () => SecretBox): number {
  const select = store.db.selectFrom('certificates').select(['id', 'p12']).where('p12', 'is not', null);
  if (store.all(select).length === 0) return 0;
  const box = secrets();
  const previous = store.sqlite.pragma('secure_delete', { simple: true }) as number;
  store.sqlite.pragma('secure_delete = ON');
  let sealed = 0;
  try {
    store.transaction(() => {
      for (const row of store.all(select)) {
        if (!row.p12) continue;
        store.run(store.db.updateTable('certificates').set({ p12_sealed: box.sealBytes(row.p12), p12: null }).where('id', '=', row.id).where('p12', 'is not', null));
        sealed++;
      }
    });
  } finally {
    store.sqlite.pragma(`secure_delete = ${previous ? 'ON' : 'OFF'}`);
  }
  // The pages that held the clear bytes, zeroed, written back into the store; the log emptied.
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return sealed;
}
