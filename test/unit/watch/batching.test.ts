/**
 * How many files at once share the watcher's costs (docs/PERFORMANCE.md, watch): the queue's
 * early release and byte budget, folder fsyncs shared by renames done together, the settle
 * timer, and the local folder watch (writes of one turn in one commit: test/unit/db/write-batch.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listFiles, watchLocalDir, type DirWatch } from '../../../core/watch/dir-watch.js';
import { createDirSyncer } from '../../../core/watch/file-names.js';
import { createWorkQueue } from '../../../core/watch/queue.js';
import { createSettler, type Settler } from '../../../core/watch/settle.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-watch-batch-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('createWorkQueue: release and weights', () => {
  it('starts the next job when one releases its place, and keeps the released key taken until it ends', async () => {
    const queue = createWorkQueue(1);
    const started: string[] = [];
    let finishA!: () => void;
    queue.push('a', async (release) => {
      started.push('a');
      release();
      await new Promise<void>((r) => (finishA = r));
    });
    queue.push('b', async () => {
      started.push('b');
    });
    await sleep(10);
    expect(started).toEqual(['a', 'b']);
    expect(queue.has('a')).toBe(true);
    queue.push('a', async () => {
      started.push('a again');
    });
    finishA();
    await queue.idle();
    expect(started).toEqual(['a', 'b']); // pushed while still running: taken once
    expect(queue.has('a')).toBe(false);
  });

  it('keeps the weights at once under the budget, but always runs one job', async () => {
    const queue = createWorkQueue(10, 100);
    let running = 0;
    let peak = 0;
    const job = async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(15);
      running--;
    };
    for (let i = 0; i < 6; i++) queue.push(`small-${i}`, job, 40);
    await queue.idle();
    expect(peak).toBe(2); // 40 + 40 ≤ 100 < 40 + 40 + 40
    peak = 0;
    queue.push('huge', job, 1000);
    await queue.idle();
    expect(peak).toBe(1);
  });
});

describe('createDirSyncer', () => {
  it('answers callers arriving during an fsync with one shared fsync that starts after them', async () => {
    const calls: number[] = [];
    let finish: Array<() => void> = [];
    const sync = createDirSyncer((dir) => {
      calls.push(calls.length);
      expect(dir).toBe('/d');
      return new Promise<void>((r) => finish.push(r));
    });
    const first = sync('/d');
    const second = sync('/d');
    const third = sync('/d');
    expect(calls).toHaveLength(1); // the first runs; the other two wait for the next one
    finish.shift()!();
    await first;
    await sleep(0);
    expect(calls).toHaveLength(2);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    await sleep(0);
    expect(secondDone).toBe(false);
    finish.shift()!();
    await Promise.all([second, third]);
    expect(calls).toHaveLength(2);
    finish = [];
  });
});

describe('createSettler: one timer', () => {
  let settler: Settler | undefined;
  afterEach(() => settler?.stop());

  it('is ready a stable window after the last touch, and a touch restarts the window', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.pdf');
    fs.writeFileSync(file, 'x');
    const ready: number[] = [];
    settler = createSettler({ stableMs: 200, intervalMs: 50, onReady: () => ready.push(Date.now()) });
    settler.touch(file);
    await sleep(120);
    fs.appendFileSync(file, 'y');
    const touched = Date.now();
    settler.touch(file); // what an event of the folder does
    expect(settler.has(file)).toBe(true);
    await sleep(600);
    expect(ready).toHaveLength(1);
    expect(ready[0]! - touched).toBeGreaterThanOrEqual(200);
    expect(settler.has(file)).toBe(false);
  });

  it('ignores a folder with a document name', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'carpeta.pdf'));
    const ready: string[] = [];
    settler = createSettler({ stableMs: 50, intervalMs: 20, onReady: (f) => ready.push(f) });
    settler.touch(path.join(dir, 'carpeta.pdf'));
    await sleep(200);
    expect(ready).toEqual([]);
    expect(settler.size).toBe(0);
  });
});

describe('watchLocalDir', () => {
  let watch: DirWatch | undefined;
  afterEach(async () => {
    await watch?.close();
    watch = undefined;
  });

  it('reports files added, renamed in and removed at the top level, not inside subfolders', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'firmados'));
    const outside = tempDir();
    const changed = new Set<string>();
    watch = watchLocalDir(dir, { changed: (f) => changed.add(f), removed: () => undefined, relist: () => undefined, error: () => undefined });
    fs.writeFileSync(path.join(dir, 'a.pdf'), 'x');
    fs.writeFileSync(path.join(outside, 'b.pdf'), 'x');
    fs.renameSync(path.join(outside, 'b.pdf'), path.join(dir, 'b.pdf'));
    fs.writeFileSync(path.join(dir, 'firmados', 'c.pdf'), 'x');
    await sleep(200);
    expect(changed.has(path.join(dir, 'a.pdf'))).toBe(true);
    expect(changed.has(path.join(dir, 'b.pdf'))).toBe(true);
    expect([...changed].some((f) => f.includes('c.pdf'))).toBe(false);
    changed.clear();
    fs.rmSync(path.join(dir, 'a.pdf'));
    await sleep(200);
    expect(changed.has(path.join(dir, 'a.pdf'))).toBe(true);
    expect((await listFiles(dir))?.sort()).toEqual(['b.pdf']);
    expect(await listFiles(path.join(dir, 'no-existe'))).toBeNull();
  });

  it('refuses a folder that does not exist', () => {
    expect(() => watchLocalDir(path.join(tempDir(), 'no-existe'), { changed: () => undefined, removed: () => undefined, relist: () => undefined, error: () => undefined })).toThrow();
  });
});
