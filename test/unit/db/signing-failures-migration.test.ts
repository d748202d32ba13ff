/**
 * Migration 0009 rebuilds signing_requests and signing_signatures to admit `failed` (SQLite
 * cannot change a CHECK in place): rows written before it keep every value, the foreign keys
 * and indexes are back, and the new states are accepted where the old ones were.
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../core/db/index.js';
import { migrationProvider } from '../../../core/db/migrations/index.js';
import { tempDir } from '../../helpers/agent.js';

const dir = tempDir('sello-migration-0009-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A store migrated up to (and including) `last`, as an older Sello left it. */
async function storeUpTo(file: string, last: string): Promise<void> {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(last);
  if (error) throw error;
  await db.destroy();
}

describe('migration 0009-signing-failures', () => {
  it('keeps every request, document and signature, and admits failed', async () => {
    const file = path.join(dir, 'sello.db');
    await storeUpTo(file, '0008-p12-sealed');
    const old = new BetterSqlite3(file);
    const now = '2026-01-01T00:00:00.000Z';
    old.prepare(`insert into signing_requests (id, environment, status, subject, reference_id, callback_url, created_at, sent_at, updated_at)
                 values ('r1', 'test', 'processing', 'Contrato', 'ref-1', 'https://erp.example/cb', ?, ?, ?)`).run(now, now, now);
    old.prepare(`insert into signing_documents (id, request_id, position, title, file_extension, original, original_hash)
                 values ('d1', 'r1', 0, 'Contrato', 'pdf', x'255044462d', 'abc')`).run();
    old.prepare(`insert into signing_signatures (id, request_id, document_id, position, certificate_id, page, size, x, y, state, attempts, last_error_code, last_error, updated_at)
                 values ('s1', 'r1', 'd1', 0, 'c1', 1, 's', 36, 36, 'pending', 2, 'pin_incorrect', 'PIN incorrecto', ?)`).run(now);
    const before = {
      request: old.prepare('select * from signing_requests').all(),
      signature: old.prepare('select * from signing_signatures').all(),
      document: old.prepare('select * from signing_documents').all(),
    };
    old.close();

    const store = await openStore(file);
    try {
      const db = store.sqlite;
      expect(db.prepare('select * from signing_requests').all()).toEqual((before.request as object[]).map((r) => ({ ...r, failed_at: null })));
      expect(db.prepare('select * from signing_signatures').all()).toEqual(before.signature);
      expect(db.prepare('select * from signing_documents').all()).toEqual(before.document);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.prepare('pragma foreign_key_check').all()).toEqual([]);
      const indexes = db.prepare("select name from sqlite_master where type = 'index' and tbl_name in ('signing_requests', 'signing_signatures') and name not like 'sqlite_%' order by name").pluck().all();
      expect(indexes).toEqual(['signing_requests_reference', 'signing_requests_status', 'signing_signatures_state']);
      // The new states, and the old checks still in force.
      db.prepare("update signing_requests set status = 'failed', failed_at = ? where id = 'r1'").run(now);
      db.prepare("update signing_signatures set state = 'failed' where id = 's1'").run();
      expect(() => db.prepare("update signing_requests set status = 'perdida' where id = 'r1'").run()).toThrow(/CHECK/);
      expect(() => db.prepare("update signing_signatures set state = 'perdida' where id = 's1'").run()).toThrow(/CHECK/);
      expect(() => db.prepare("insert into signing_signatures (id, request_id, document_id, position, certificate_id, page, size, x, y, state, updated_at) values ('s2', 'nada', 'd1', 1, 'c1', 1, 's', 0, 0, 'pending', ?)").run(now)).toThrow(/FOREIGN KEY/);
      expect(() => db.prepare("insert into signing_requests (id, environment, status, subject, reference_id, created_at, updated_at) values ('r2', 'test', 'draft', 'x', 'ref-1', ?, ?)").run(now, now)).toThrow(/UNIQUE/);
    } finally {
      await store.close();
    }
  });
});
