/**
 * The timing parts of the watcher without chokidar: write-finish detection (settle.ts, over real
 * temp files), the bounded de-duplicating queue, and the settings read from SELLO_WATCH_*.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkQueue } from '../../../core/watch/queue.js';
import { createSettler, type Settler } from '../../../core/watch/settle.js';
import { defaultPosition, watchSettings } from '../../../core/watch/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createSettler', () => {
  let settler: Settler | undefined;
  let dir: string | undefined;
  afterEach(() => {
    settler?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const setup = (stableMs: number) => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-settle-'));
    const ready: Array<{ file: string; at: number }> = [];
    settler = createSettler({ stableMs, intervalMs: 20, onReady: (file) => ready.push({ file, at: Date.now() }) });
    return { dir, ready, settler };
  };

  it('reports a file once, after it has stayed unchanged for the stable window', async () => {
    const { dir, ready, settler } = setup(150);
    const file = path.join(dir, 'a.pdf');
    fs.writeFileSync(file, 'x');
    const t0 = Date.now();
    settler.touch(file);
    expect(settler.size).toBe(1);
    await sleep(450);
    expect(ready.map((r) => r.file)).toEqual([file]);
    expect(ready[0]!.at - t0).toBeGreaterThanOrEqual(150);
    expect(settler.size).toBe(0);
  });

  it('never reports a file while it keeps growing, and reports it once it stops', async () => {
    const { dir, ready, settler } = setup(150);
    const file = path.join(dir, 'lento.pdf');
    fs.writeFileSync(file, 'a');
    settler.touch(file);
    let lastWrite = 0;
    for (let i = 0; i < 8; i++) {
      await sleep(60);
      fs.appendFileSync(file, 'b');
      lastWrite = Date.now();
      expect(ready).toEqual([]);
    }
    await sleep(400);
    expect(ready).toHaveLength(1);
    expect(ready[0]!.at - lastWrite).toBeGreaterThanOrEqual(150);
  });

  it('waits while a file is empty, and drops files that disappear or are forgotten', async () => {
    const { dir, ready, settler } = setup(80);
    const empty = path.join(dir, 'vacio.pdf');
    const gone = path.join(dir, 'borrado.pdf');
    const forgotten = path.join(dir, 'olvidado.pdf');
    fs.writeFileSync(empty, '');
    fs.writeFileSync(gone, 'x');
    fs.writeFileSync(forgotten, 'x');
    for (const f of [empty, gone, forgotten]) settler.touch(f);
    settler.forget(forgotten);
    fs.rmSync(gone);
    await sleep(300);
    expect(ready).toEqual([]);
    expect(settler.size).toBe(1); // the empty one, still waiting for content
    fs.writeFileSync(empty, 'contenido');
    await sleep(300);
    expect(ready.map((r) => r.file)).toEqual([empty]);
  });
});

describe('createWorkQueue', () => {
  it('runs at most `concurrency` jobs at once and each key once while queued or running', async () => {
    const queue = createWorkQueue(2);
    let running = 0;
    let peak = 0;
    const ran: string[] = [];
    const job = (key: string) => async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(20);
      ran.push(key);
      running--;
    };
    for (const key of ['a', 'b', 'c', 'a', 'd', 'b']) queue.push(key, job(key));
    expect(queue.size).toBe(4);
    await queue.idle();
    expect(ran.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(peak).toBe(2);
    queue.push('a', job('a')); // done before: runs again
    await queue.idle();
    expect(ran.filter((k) => k === 'a')).toHaveLength(2);
  });

  it('keeps going after a job throws, and stop() waits for running jobs and drops the rest', async () => {
    const queue = createWorkQueue(1);
    const ran: string[] = [];
    queue.push('boom', () => Promise.reject(new Error('boom')));
    queue.push('ok', async () => {
      await sleep(30);
      ran.push('ok');
    });
    queue.push('never', async () => {
      ran.push('never');
    });
    await sleep(5);
    await queue.stop();
    expect(ran).toEqual(['ok']);
    queue.push('after', async () => {
      ran.push('after');
    });
    await sleep(10);
    expect(ran).toEqual(['ok']);
  });
});

describe('watchSettings', () => {
  it('has the documented defaults', () => {
    expect(watchSettings({})).toEqual({ stableMs: 500, incompleteGraceMs: 60_000, concurrency: 32, pollIntervalMs: 1000, reloadMs: 1000 });
  });
  it('reads SELLO_WATCH_* and ignores empty, zero, negative or non-numeric values', () => {
    expect(watchSettings({ SELLO_WATCH_STABLE_MS: '250', SELLO_WATCH_INCOMPLETE_SECONDS: '5', SELLO_WATCH_CONCURRENCY: '8.7', SELLO_WATCH_POLL_MS: '300', SELLO_WATCH_RELOAD_MS: '100' })).toEqual({
      stableMs: 250,
      incompleteGraceMs: 5000,
      concurrency: 8,
      pollIntervalMs: 300,
      reloadMs: 100,
    });
    expect(watchSettings({ SELLO_WATCH_STABLE_MS: '', SELLO_WATCH_CONCURRENCY: '0', SELLO_WATCH_POLL_MS: '-1', SELLO_WATCH_RELOAD_MS: 'rápido' })).toEqual(watchSettings({}));
  });
});

describe('defaultPosition', () => {
  it('puts the stamp bottom-left, half an inch from the edges of a Letter page', () => {
    expect(defaultPosition('s')).toEqual({ x: 36, y: 606 });
    for (const size of ['s', 'm', 'l'] as const) {
      const { x, y } = defaultPosition(size);
      expect(x).toBe(36);
      expect(y).toBeGreaterThan(0);
      expect(y).toBeLessThan(792 - 36);
    }
  });
});
