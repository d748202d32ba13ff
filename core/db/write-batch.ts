/**
 * Writes that share one commit (`Store.batch`). With `synchronous = FULL` every commit is an
 * fsync of SQLite's log, the dearest part of a small write: files signed together, by the
 * folder watcher and the signing worker, would otherwise cost one each.
 *
 * A batch is committed `windowMs` after its first write, so that writes arriving a moment
 * apart share it too: 32 files in flight each finish their steps at different moments (a
 * signature comes back from the signing thread one at a time), and committing at the end of
 * each turn of the event loop gave ~0.7 commits per file where a 4 ms window gives far fewer.
 */
import type BetterSqlite3 from 'better-sqlite3';

export interface WriteBatch {
  /**
   * Runs `write` (store statements, no await) in a transaction shared with the other writes
   * asked for within the batch's window, each in its own savepoint: one that throws is
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
  /** How long after its first write a batch is committed; 0: at the end of this turn of the event loop. */
  windowMs?: number;
}

/** A batch this large is committed at once: one transaction stays short. */
const MAX_BATCH = 256;

export function createWriteBatch({ sqlite, transaction, storageError, windowMs = 0 }: WriteBatchDeps): WriteBatch {
  let pending: BatchItem[] = [];
  /** Cancels the commit scheduled for the waiting writes, if any. */
  let cancelScheduled: (() => void) | undefined;
  const commitIn = (ms: number): (() => void) => {
    if (ms > 0) {
      const timer = setTimeout(flush, ms);
      return () => clearTimeout(timer);
    }
    const immediate = setImmediate(flush);
    return () => clearImmediate(immediate);
  };

  function schedule(): void {
    if (pending.length >= MAX_BATCH) {
      cancelScheduled?.();
      cancelScheduled = commitIn(0);
    } else {
      cancelScheduled ??= commitIn(windowMs);
    }
  }

  const savepoint = sqlite.prepare('SAVEPOINT batched_write');
  const release = sqlite.prepare('RELEASE batched_write');
  const rollbackTo = sqlite.prepare('ROLLBACK TO batched_write');

  function flush(): void {
    cancelScheduled?.();
    cancelScheduled = undefined;
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
        schedule();
      });
    },
    flush,
  };
}
