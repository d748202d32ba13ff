/**
 * Migrations (core/db/migrate.ts): the pending ones run in one transaction, so a failure or a
 * crash anywhere leaves the store as it was; a store that already lists every migration is only
 * read at each start (issue 17: no write, no fsync); stores made by kysely's Migrator and by
 * migrate.ts are the same to both.
 */
import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../core/db/index.js';
import { migrateToLatest } from '../../../core/db/migrate.js';
import { migrationProvider } from '../../../core/db/migrations/index.js';
import { tempDir } from '../../helpers/agent.js';
import { repoRoot } from '../../helpers/cli.js';

const dir = tempDir('sello-migrate-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `sello-${++files}.db`);

/** Everything a store holds: its schema and every row of every table. */
function contents(sqlite: BetterSqlite3.Database): unknown {
  const schema = sqlite.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name").all() as Array<{ type: string; name: string }>;
  const rows = schema.filter((o) => o.type === 'table').map((t) => [t.name, sqlite.prepare(`select * from "${t.name}" order by rowid`).all()]);
  return { schema, rows };
}

function contentsOf(file: string): unknown {
  const sqlite = new BetterSqlite3(file, { readonly: true });
  try {
    return contents(sqlite);
  } finally {
    sqlite.close();
  }
}

/** Runs migrate.ts on `file` as openStore does, with `migrations`. */
async function migrate(file: string, migrations: Record<string, Migration>): Promise<void> {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    await migrateToLatest(sqlite, db, migrations);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.inTransaction).toBe(false);
  } finally {
    await db.destroy();
  }
}

const failing = (name: string): Record<string, Migration> => ({
  [name]: {
    async up(db) {
      await db.schema.createTable('half_done').addColumn('id', 'integer').execute();
      throw new Error('la migración falla a medias');
    },
  },
});

describe('migrations', () => {
  it('a restart with an up-to-date store writes nothing', async () => {
    const file = newFile();
    await (await openStore(file)).close();
    // Another connection, open throughout: `data_version` changes when any other connection commits.
    const observer = new BetterSqlite3(file);
    const version = () => observer.pragma('data_version', { simple: true });
    const before = { version: version(), db: fs.statSync(file).mtimeMs, wal: fs.statSync(`${file}-wal`).size };
    for (let i = 0; i < 3; i++) await (await openStore(file)).close();
    expect(version()).toBe(before.version);
    expect(fs.statSync(file).mtimeMs).toBe(before.db);
    expect(fs.statSync(`${file}-wal`).size).toBe(before.wal);
    observer.close();
  });

  it('a new store gets every migration, recorded as kysely records them', async () => {
    const file = newFile();
    const store = await openStore(file);
    try {
      const names = Object.keys(await migrationProvider.getMigrations()).sort();
      expect(store.sqlite.prepare('select name from kysely_migration order by name').pluck().all()).toEqual(names);
      expect(store.sqlite.prepare('select id, is_locked from kysely_migration_lock').all()).toEqual([{ id: 'migration_lock', is_locked: 0 }]);
      expect(store.sqlite.prepare('pragma foreign_key_check').all()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('makes the same store as kysely’s Migrator, and each takes the other’s as up to date', async () => {
    const ours = newFile();
    await (await openStore(ours)).close();
    const theirs = newFile();
    const sqlite = new BetterSqlite3(theirs);
    sqlite.pragma('journal_mode = WAL');
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await db.destroy();

    const schema = (file: string) => (contentsOf(file) as { schema: unknown }).schema;
    expect(schema(ours)).toEqual(schema(theirs));

    // kysely's Migrator on our store: nothing to do.
    const again = new BetterSqlite3(ours);
    const onOurs = new Kysely<unknown>({ dialect: new SqliteDialect({ database: again }) });
    const result = await new Migrator({ db: onOurs, provider: migrationProvider }).migrateToLatest();
    expect(result).toEqual({ error: undefined, results: [] });
    await onOurs.destroy();

    // Ours on kysely's store: only read.
    const observer = new BetterSqlite3(theirs);
    const version = observer.pragma('data_version', { simple: true });
    await (await openStore(theirs)).close();
    expect(observer.pragma('data_version', { simple: true })).toBe(version);
    observer.close();
  });

  it('runs every pending migration in one transaction: one that fails undoes them all', async () => {
    const file = newFile();
    const all = await migrationProvider.getMigrations();
    await expect(migrate(file, { ...all, ...failing('9999-fails') })).rejects.toThrow('la migración falla a medias');
    // Not one of the ten before it stayed, nor kysely's bookkeeping.
    expect(contentsOf(file)).toEqual({ schema: [], rows: [] });

    // And on a store with data, up to date until the new one: nothing of it changes.
    const store = await openStore(file);
    store.sqlite.prepare("insert into books (id, slug, tenant_slug, name, created_at) values ('b1', 'acme', 't1', 'Acme', '2026-01-01T00:00:00.000Z')").run();
    await store.close();
    const before = contentsOf(file);
    await expect(migrate(file, { ...all, ...failing('9999-fails') })).rejects.toThrow('la migración falla a medias');
    expect(contentsOf(file)).toEqual(before);
  });

  it('a crash in the middle of the migrations leaves the store as it was', async () => {
    const file = newFile();
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/unit/db/migrate-child.ts'), file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const line = await Promise.race([
      new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve)),
      exited.then(() => {
        throw new Error(`the child ended before it was ready: ${stderr}`);
      }),
    ]);
    expect(line).toBe('ready');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // The transaction's pages had reached the WAL (migrate-child.ts spills them), uncommitted.
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);

    expect(contentsOf(file)).toEqual({ schema: [], rows: [] });
    const store = await openStore(file);
    try {
      expect(store.sqlite.prepare("select count(*) from sqlite_master where name = 'half_done'").pluck().get()).toBe(0);
      expect(store.sqlite.prepare('select count(*) from kysely_migration').pluck().get()).toBe(Object.keys(await migrationProvider.getMigrations()).length);
    } finally {
      await store.close();
    }
  }, 30_000);

  it('refuses, unchanged, a store that records a migration this version does not know', async () => {
    const file = newFile();
    await (await openStore(file)).close();
    const sqlite = new BetterSqlite3(file);
    sqlite.prepare("insert into kysely_migration (name, timestamp) values ('9999-newer', ?)").run(new Date().toISOString());
    sqlite.close();
    const before = contentsOf(file);
    await expect(openStore(file)).rejects.toThrow(/previously executed migration 9999-newer is missing/);
    expect(contentsOf(file)).toEqual(before);
  });
});
