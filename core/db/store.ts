import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { SelloError } from '../errors/index.js';
import { migrateToLatest } from './migrate.js';
import { migrationProvider } from './migrations/index.js';
import { createWriteBatch } from './write-batch.js';
import type { Database } from './schema.js';

/** Anything kysely can compile: a select, insert, update or delete builder. */
export interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

/**
 * The SQLite store. Queries are built with kysely (types that carry the SQL) and run
 * synchronously on better-sqlite3: short transactions, no await inside one, so a
 * transaction can never span an HTTP call.
 */
export interface Store {
  readonly db: Kysely<Database>;
  readonly sqlite: BetterSqlite3.Database;
  all<Row>(query: Compilable<Row>): Row[];
  first<Row>(query: Compilable<Row>): Row | undefined;
  run(query: Compilable<unknown>): { changes: number };
  /**
   * A prepared statement for hand-written SQL, prepared once per text. Only for the
   * few hot paths where building the query each time would cost more than running it.
   */
  statement<Params extends unknown[], Row>(sql: string): BetterSqlite3.Statement<Params, Row>;
  /**
   * Changes whenever anything is written to the database, by this connection or by
   * another process: a cheap, exact test that a cached read is still true.
   */
  changeMarker(): string;
  /** Runs `fn` in a `BEGIN IMMEDIATE` transaction; a throw rolls it back. */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `write` (statements, no await) in a transaction shared with the other batched writes
   * of this turn of the event loop, each in a savepoint of its own (write-batch.ts); resolves
   * once committed. For background work done many times at once, where one commit (one fsync)
   * per item would be the main cost.
   */
  batch<T>(write: () => T): Promise<T>;
  close(): Promise<void>;
}

type SqliteValue = string | number | bigint | Buffer | null;

const STATEMENT_CACHE_SIZE = 500;

/** `Store.batch`: writes asked for within this long of the first share its commit (write-batch.ts). */
const BATCH_WINDOW_MS = 4;

/**
 * SQLite's "disk full" and "locked by another process for longer than BUSY_TIMEOUT_MS" as the
 * errors a person can act on (503/507 with a clear message instead of a bare 500), and that
 * background workers recognise as passing faults to retry rather than failures to report.
 * Any other error passes through unchanged.
 */
export function storageError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  if (code === 'SQLITE_FULL') return new SelloError('storage_full', { cause: err });
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SelloError('storage_busy', { headers: { 'Retry-After': '5' }, cause: err });
  }
  return err;
}

/** True for the two passing faults of the store: full disk, database locked by another program. */
export function isStorageFault(err: unknown): err is SelloError {
  return err instanceof SelloError && (err.code === 'storage_full' || err.code === 'storage_busy');
}

function toSqlite(values: readonly unknown[]): SqliteValue[] {
  return values.map((v) => {
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (v === undefined) return null;
    return v as SqliteValue;
  });
}

/**
 * How long a write waits for another process's lock before failing with `storage_busy`.
 * better-sqlite3 waits synchronously, so the whole agent (API, deliveries, signing, folders)
 * stands still meanwhile: long enough for another `sello` command's short transactions, short
 * enough that a program holding the database for minutes gets clear 503s and retries on a
 * schedule instead of a frozen agent.
 */
const BUSY_TIMEOUT_MS = 1000;

/**
 * Opens (creating if needed) the store at `file`, applies the pragmas every
 * connection needs and runs pending migrations (migrate.ts: all in one transaction; none, and
 * no write, when the store is up to date).
 *
 * WAL lets readers go on while a write commits; `synchronous = FULL` makes each
 * commit durable on power loss, which a delivery outbox needs; `busy_timeout`
 * waits for another process's lock instead of failing at once.
 */
export async function openStore(file: string): Promise<Store> {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);

  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrateToLatest(sqlite, db, await migrationProvider.getMigrations());
  } catch (error) {
    sqlite.close();
    throw error instanceof Error ? error : new Error(String(error));
  }

  const statements = new Map<string, BetterSqlite3.Statement>();
  // Least recently used first: filters and pages produce many SQL texts, the cache stays bounded.
  const prepareText = (text: string): BetterSqlite3.Statement => {
    let statement = statements.get(text);
    if (statement) {
      statements.delete(text);
    } else {
      statement = sqlite.prepare(text);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
    }
    statements.set(text, statement);
    return statement;
  };
  const prepare = (query: CompiledQuery<unknown>): BetterSqlite3.Statement => prepareText(query.sql);

  // Two plain statements: cheaper than one that calls the pragma as a table-valued function.
  const ownChanges = sqlite.prepare<[], number>('select total_changes()').pluck(true);
  const dataVersion = sqlite.prepare<[], number>('pragma data_version').pluck(true);
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const batch = createWriteBatch({ sqlite, transaction, storageError, windowMs: BATCH_WINDOW_MS });

  /** Runs `fn`, turning the store's passing faults into their SelloErrors (see `storageError`). */
  const guarded = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      throw storageError(err);
    }
  };

  return {
    db,
    sqlite,
    all<Row>(query: Compilable<Row>): Row[] {
      const compiled = query.compile();
      const statement = prepare(compiled);
      const params = toSqlite(compiled.parameters);
      return guarded(() => {
        if (!statement.reader) {
          statement.run(params);
          return [];
        }
        return statement.all(params) as Row[];
      });
    },
    first<Row>(query: Compilable<Row>): Row | undefined {
      const compiled = query.compile();
      const statement = prepare(compiled);
      return guarded(() => statement.get(toSqlite(compiled.parameters)) as Row | undefined);
    },
    run(query: Compilable<unknown>): { changes: number } {
      const compiled = query.compile();
      const statement = prepare(compiled);
      const params = toSqlite(compiled.parameters);
      return guarded(() => {
        if (statement.reader) {
          // UPDATE … RETURNING and the like: still a write.
          const rows = statement.all(params);
          return { changes: rows.length };
        }
        return { changes: statement.run(params).changes };
      });
    },
    statement<Params extends unknown[], Row>(text: string) {
      return prepareText(text) as unknown as BetterSqlite3.Statement<Params, Row>;
    },
    changeMarker(): string {
      return `${ownChanges.get()}:${dataVersion.get()}`;
    },
    transaction,
    batch: (write) => batch.write(write),
    async close(): Promise<void> {
      batch.flush(); // what is waiting is committed, as it would have been a moment later
      statements.clear();
      await db.destroy();
    },
  };

  function transaction<T>(fn: () => T): T {
    if (sqlite.inTransaction) return fn();
    guarded(() => begin.run());
    try {
      const result = fn();
      commit.run();
      return result;
    } catch (err) {
      // SQLite rolls back by itself after some errors (a full disk among them).
      if (sqlite.inTransaction) rollback.run();
      throw storageError(err);
    }
  }
}
