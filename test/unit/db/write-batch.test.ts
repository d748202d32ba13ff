/**
 * `Store.batch` (core/db/write-batch.ts): writes asked for in one turn of the event loop share
 * one commit; one that throws is undone alone; a commit that fails stores none of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../core/db/index.js';
import { tempDir } from '../../helpers/agent.js';

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = tempDir('sello-write-batch-');
  store = await openStore(path.join(dir, 'sello.db'));
  store.sqlite.exec('create table t (v text not null)');
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const values = () => store.sqlite.prepare('select v from t order by v').pluck().all();

describe('Store.batch', () => {
  it('commits the writes of one turn together; one that throws is undone alone', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    const a = store.batch(() => insert.run('a').changes);
    const bad = store.batch(() => {
      insert.run('b');
      throw new Error('no');
    });
    const c = store.batch(() => insert.run('c').changes);
    expect(values()).toEqual([]); // nothing before the turn ends
    await expect(a).resolves.toBe(1);
    await expect(bad).rejects.toThrow('no');
    await expect(c).resolves.toBe(1);
    expect(values()).toEqual(['a', 'c']);
  });

  it('is one commit for the writes of a turn, and one more for each later turn', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    // Every commit appends the pages it changed to SQLite's log: here the one page of `t`.
    const frameSize = (store.sqlite.pragma('page_size', { simple: true }) as number) + 24;
    const wal = path.join(dir, 'sello.db-wal');
    const frames = (since: number) => (fs.statSync(wal).size - since) / frameSize;
    const start = fs.statSync(wal).size;
    await Promise.all(['a', 'b', 'c', 'd'].map((v) => store.batch(() => insert.run(v))));
    expect(frames(start)).toBe(1);
    await store.batch(() => insert.run('e'));
    await store.batch(() => insert.run('f'));
    expect(frames(start)).toBe(3);
    expect(values()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('shares the commit with writes asked for a moment later, within its window', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    const frameSize = (store.sqlite.pragma('page_size', { simple: true }) as number) + 24;
    const wal = path.join(dir, 'sello.db-wal');
    const start = fs.statSync(wal).size;
    const first = store.batch(() => insert.run('a'));
    await new Promise((r) => setImmediate(r)); // another turn of the event loop
    const second = store.batch(() => insert.run('b'));
    expect(values()).toEqual([]);
    await Promise.all([first, second]);
    expect((fs.statSync(wal).size - start) / frameSize).toBe(1);
    expect(values()).toEqual(['a', 'b']);
  });

  it('rejects every write of a batch whose commit fails, and stores none of them', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    // A deferred foreign key makes the COMMIT itself fail, after every savepoint was released.
    store.sqlite.exec('create table parent (id integer primary key); create table child (p integer references parent(id) deferrable initially deferred)');
    const a = store.batch(() => insert.run('a'));
    const broken = store.batch(() => store.sqlite.prepare('insert into child (p) values (42)').run());
    await expect(a).rejects.toThrow(/FOREIGN KEY/);
    await expect(broken).rejects.toThrow(/FOREIGN KEY/);
    expect(values()).toEqual([]);
    expect(store.sqlite.inTransaction).toBe(false);
  });

  it('answers storage_full to a write that meets a full store, stores only what resolved, and goes on once there is room', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    store.sqlite.exec('VACUUM');
    store.sqlite.pragma(`max_page_count = ${store.sqlite.pragma('page_count', { simple: true }) as number}`); // what a full disk looks like to SQLite
    const small = store.batch(() => insert.run('a'));
    const large = store.batch(() => insert.run('x'.repeat(200_000)));
    const results = await Promise.allSettled([small, large]);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'storage_full' });
    expect(results[1]!.status).toBe('rejected');
    expect(store.sqlite.inTransaction).toBe(false);
    const stored = values();
    expect(stored.every((v) => v === 'a')).toBe(true);
    expect(stored.length).toBe(results[0]!.status === 'fulfilled' ? 1 : 0); // what resolved is stored, nothing else
    store.sqlite.pragma('max_page_count = 1073741823');
    await expect(store.batch(() => insert.run('b').changes)).resolves.toBe(1);
    expect(values()).toEqual([...stored, 'b']);
  });

  it('commits what waits when the store closes', async () => {
    const insert = store.sqlite.prepare('insert into t (v) values (?)');
    const written = store.batch(() => insert.run('a'));
    await store.close();
    await expect(written).resolves.toBeDefined();
    store = await openStore(path.join(dir, 'sello.db'));
    expect(values()).toEqual(['a']);
  });
});
