/**
 * The child of migrate.test.ts's crash test: migrates the store at argv[2] (as openStore does)
 * with every migration plus one more that creates a table, says `ready` and then never ends, so
 * that the parent can kill the process in the middle of the migrations' transaction.
 */
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { migrateToLatest } from '../../../core/db/migrate.js';
import { migrationProvider } from '../../../core/db/migrations/index.js';

const sqlite = new BetterSqlite3(process.argv[2]!);
sqlite.pragma('journal_mode = WAL');
sqlite.pragma('synchronous = FULL');
sqlite.pragma('foreign_keys = ON');
// A tiny page cache: SQLite spills the transaction's pages into the WAL before the commit, as a
// large migration would, and the crash finds them there.
sqlite.pragma('cache_size = 2');
const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
await migrateToLatest(sqlite, db, {
  ...(await migrationProvider.getMigrations()),
  '9999-hangs': {
    async up(trx) {
      await trx.schema.createTable('half_done').addColumn('id', 'integer').execute();
      process.stdout.write('ready\n');
      await new Promise(() => undefined);
    },
  },
});
