/**
 * Brings a store to the latest schema: every pending migration in one `BEGIN IMMEDIATE`
 * transaction, recorded in kysely's own bookkeeping (`kysely_migration`, `kysely_migration_lock`,
 * the tables kysely's `Migrator` reads and writes, so a store stays readable by either).
 *
 * Kysely's `Migrator` runs each statement of each migration on its own on SQLite (its adapter
 * says SQLite has no transactional DDL), so a first start paid one commit (one fsync) per
 * statement, and a crash half-way left a store between two versions. Here a crash or an error
 * anywhere leaves the store as it was. A store that already lists exactly the known migrations
 * (every start but the first after an upgrade) is only read: no introspection, no write.
 *
 * Foreign keys are off while migrations run, as SQLite's procedure for rebuilding a table asks
 * (sqlite.org/lang_altertable.html §7; the pragma does nothing inside a transaction, so it is set
 * around it), and `pragma foreign_key_check` must find nothing before the commit.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE, MIGRATION_LOCK_ID, type Kysely, type Migration } from 'kysely';

/** The migrations a store records as applied, by name. */
function appliedMigrations(sqlite: BetterSqlite3.Database): Array<{ name: string; timestamp: string }> {
  const exists = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(DEFAULT_MIGRATION_TABLE);
  if (!exists) return [];
  return sqlite.prepare(`select name, timestamp from "${DEFAULT_MIGRATION_TABLE}"`).all() as Array<{ name: string; timestamp: string }>;
}

/** Whether the store lists exactly these migrations: nothing to do. */
function upToDate(sqlite: BetterSqlite3.Database, known: readonly string[]): boolean {
  const applied = appliedMigrations(sqlite).map((m) => m.name);
  if (applied.length !== known.length) return false;
  const set = new Set(applied);
  return known.every((name) => set.has(name));
}

/**
 * Applies the pending migrations of `migrations` (by name; applied in name order). Throws, with
 * the store unchanged, if one fails, if the store records a migration this version does not know
 * (a newer Sello's store), or if one recorded comes after one pending (kysely's rules).
 */
export async function migrateToLatest(
  sqlite: BetterSqlite3.Database,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<void> {
  const known = Object.keys(migrations).sort();
  if (upToDate(sqlite, known)) return;

  sqlite.pragma('foreign_keys = OFF');
  try {
    // Immediate: another process opening the same store at the same moment waits here
    // (busy_timeout), then finds the migrations done when it reads them below.
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      await db.schema
        .createTable(DEFAULT_MIGRATION_TABLE)
        .ifNotExists()
        .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
        .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable(DEFAULT_MIGRATION_LOCK_TABLE)
        .ifNotExists()
        .addColumn('id', 'varchar(255)', (c) => c.notNull().primaryKey())
        .addColumn('is_locked', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      sqlite.prepare(`insert or ignore into "${DEFAULT_MIGRATION_LOCK_TABLE}" (id, is_locked) values (?, 0)`).run(MIGRATION_LOCK_ID);

      // kysely's order of what was applied: by time, then by name.
      const applied = appliedMigrations(sqlite)
        .sort((a, b) => (a.timestamp === b.timestamp ? a.name.localeCompare(b.name) : new Date(a.timestamp).getTime() - new Date(b.timestamp).getTime()))
        .map((m) => m.name);
      for (const name of applied) {
        if (!(name in migrations)) throw new Error(`corrupted migrations: previously executed migration ${name} is missing`);
      }
      applied.forEach((name, i) => {
        if (known[i] !== name) {
          throw new Error(`corrupted migrations: expected previously executed migration ${name} to be at index ${i} but ${known[i]} was found in its place. New migrations must always have a name that comes alphabetically after the last executed migration.`);
        }
      });

      const record = sqlite.prepare(`insert into "${DEFAULT_MIGRATION_TABLE}" (name, timestamp) values (?, ?)`);
      for (const name of known.slice(applied.length)) {
        await migrations[name]!.up(db);
        record.run(name, new Date().toISOString());
      }
      const broken = sqlite.prepare('pragma foreign_key_check').all();
      if (broken.length > 0) throw new Error(`migrations: ${broken.length} broken foreign keys`);
      sqlite.exec('COMMIT');
    } catch (err) {
      // SQLite may have rolled back by itself (a full disk among the causes).
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw err;
    }
  } finally {
    sqlite.pragma('foreign_keys = ON');
  }
}
