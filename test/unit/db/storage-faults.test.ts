/**
 * The store's passing faults (core/db/store.ts): a full disk and a database held locked by
 * another program become `storage_full` (507) and `storage_busy` (503, Retry-After) — errors a
 * person can act on and that background work knows to retry — and nothing else changes.
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageFault, openStore, type Store } from '../../../core/db/index.js';
import { SelloError } from '../../../core/errors/index.js';
import { tempDir } from '../../helpers/agent.js';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = tempDir('sello-store-faults-');
  store = await openStore(path.join(dir, 'sello.db'));
  store.sqlite.exec('create table notas (id integer primary key, texto text not null unique)');
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const insert = (texto: string) => store.run(store.db.insertInto('notas' as never).values({ texto } as never));

describe('storage faults', () => {
  it('a full database is storage_full (507), in and out of a transaction, and nothing is half-written', () => {
    insert('antes');
    const pages = store.sqlite.pragma('page_count', { simple: true }) as number;
    store.sqlite.pragma(`max_page_count = ${pages}`); // what a full disk looks like to SQLite: SQLITE_FULL
    const big = 'x'.repeat(64 * 1024);
    let thrown: unknown;
    try {
      insert(big);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SelloError);
    expect(thrown).toMatchObject({ code: 'storage_full', status: 507 });
    expect(isStorageFault(thrown)).toBe(true);
    expect((thrown as SelloError).message).toMatch(/No queda espacio en el disco/);
    expect(() => store.transaction(() => insert(`${big}-2`))).toThrow(expect.objectContaining({ code: 'storage_full' }));
    expect(store.sqlite.inTransaction).toBe(false);
    store.sqlite.pragma('max_page_count = 1073741823');
    insert(big);
    expect(store.sqlite.prepare('select count(*) as n from notas').get()).toEqual({ n: 2 });
  });

  it('a database held by another process beyond the busy timeout is storage_busy (503, Retry-After)', () => {
    const other = new BetterSqlite3(path.join(dir, 'sello.db'));
    other.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      let thrown: unknown;
      try {
        store.transaction(() => insert('bloqueada'));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toMatchObject({ code: 'storage_busy', status: 503, details: { headers: { 'Retry-After': '5' } } });
      expect(isStorageFault(thrown)).toBe(true);
      // It waited for the lock (busy timeout), though not for long: the agent stands still meanwhile.
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(() => insert('sin transacción')).toThrow(expect.objectContaining({ code: 'storage_busy' }));
      // Reads go on: WAL lets them past another process's write lock.
      expect(store.sqlite.prepare('select count(*) as n from notas').get()).toEqual({ n: 0 });
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    insert('libre');
    expect(store.sqlite.prepare('select count(*) as n from notas').get()).toEqual({ n: 1 });
  });

  it('leaves every other error as it was (a constraint is not a fault of the machine)', () => {
    insert('una');
    let thrown: unknown;
    try {
      insert('una');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).not.toBeInstanceOf(SelloError);
    expect(thrown).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(isStorageFault(thrown)).toBe(false);
  });
});
