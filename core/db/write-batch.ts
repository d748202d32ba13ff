/**
 * Writes that share one commit (`Store.batch`). With `synchronous = FULL` every commit is an
 * fsync of SQLite's log, the dearest part of a small write: files signed together, by the
 * folder watcher and the signing worker, would otherwise cost one each.
 */
import type BetterSqlite3 from 'better-sqlite3';

export interface WriteBatch {
  /**
   * Runs `write` (store statements, no await) in a transaction shared with the other writes
   * asked for in the same turn of the event loop, each in its own savepoint: one that throws is
   * undone alone and rejects its own promise. Resolves with its result once committed; a
   * commit that fails rejects every write of the batch, none of which is stored.
   */
  write<T>(write: () => T): Promise<T>;
  /** Commits what is waiting now. */
  flush(): void;
}

interface BatchItem {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface WriteBatchDeps {
  sqlite: BetterSqlite3.Database;
  /** The store's transaction: BEGIN IMMEDIATE, COMMIT, and its errors as the store's (storage faults). */
  transaction<T>(fn: () => T): T;
  /** The store's own error for what a write threw (a full disk is `storage_full`). */
  storageError(err: unknown): unknown;
}

export function createWriteBatch({ sqlite, transaction, storageError }: WriteBatchDeps): WriteBatch {
  let pending: BatchItem[] = [];
  let scheduled = false;
  const savepoint = sqlite.prepare('SAVEPOINT batched_write');
  const release = sqlite.prepare('RELEASE batched_write');
  const rollbackTo = sqlite.prepare('ROLLBACK TO batched_write');

  function flush(): void {
    scheduled = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      transaction(() => {
        for (const item of batch) {
          savepoint.run();
          try {
            const value = item.write();
            release.run();
            outcomes.push({ ok: true, value });
          } catch (err) {
            // After some errors (a full disk among them) SQLite has rolled the whole transaction
            // back: nothing of the batch can be stored, every write fails with this error.
            if (!sqlite.inTransaction) throw err;
            rollbackTo.run();
            release.run();
            outcomes.push({ ok: false, err: storageError(err) });
          }
        }
      });
    } catch (err) {
      // The commit failed (a full disk, a busy store…), or the transaction was lost: nothing of
      // the batch is stored.
      for (const item of batch) item.reject(err);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.err);
    });
  }

  return {
    write<T>(write: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    flush,
  };
}
