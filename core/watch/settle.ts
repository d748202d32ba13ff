/**
 * Write-finish detection (CONTRACT §13 "signed once its writing has finished"): a file is
 * ready when its size and modification time have not changed for `stableMs`. Checked by
 * our own stats rather than chokidar's `awaitWriteFinish`, so the same rule holds for OS
 * events, polling on network shares and the initial scan, and a file that is not complete
 * yet (no `%%EOF`, locked by its writer) can be sent back to wait.
 *
 * One timer for every file, not one poll per file: a touched file is looked at once right
 * away (its size and time, and when that look was), then again exactly `stableMs` later; the
 * same size and time then means it stayed unchanged for the whole window, and it is ready.
 * A change seen then starts a new window from that look. Every event of the folder touches
 * the file again, which restarts its window, so a file still being written never comes out;
 * a file written in one go comes out `stableMs` after its last change, not a polling period
 * later. A file still empty is looked at again every `intervalMs`. An entry that is not a
 * regular file (a symlink, a FIFO) is never waited for: it is ready at once, to be refused.
 */
import fs from 'node:fs/promises';

export interface SettleOptions {
  stableMs: number;
  /** How often a file that is still empty is looked at again. */
  intervalMs: number;
  /** `size`: its size in bytes when found ready. */
  onReady(file: string, size: number): void;
}

export interface Settler {
  /** (Re)starts the wait for `file`: called on add and change events and when a file must wait again. */
  touch(file: string): void;
  forget(file: string): void;
  /** Whether `file` is settling. */
  has(file: string): boolean;
  /** Files still settling. */
  readonly size: number;
  stop(): void;
}

interface Entry {
  /** Size and time at the last look; `null` until the first one. */
  seen: { size: number; mtimeMs: number } | null;
  /** When the size and time last seen were first seen. */
  since: number;
  /** When to look next. */
  due: number;
}

export function createSettler(opts: SettleOptions): Settler {
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let checking = false;
  let stopped = false;

  /** Sets the one timer for the earliest look due (at once for files not looked at yet). */
  function schedule(): void {
    if (stopped || checking) return; // check() schedules again when it ends
    let next = Infinity;
    for (const entry of entries.values()) if (entry.due < next) next = entry.due;
    if (next === timerAt) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    timerAt = next;
    if (next === Infinity) return;
    timer = setTimeout(() => void check(), Math.max(0, next - Date.now()));
    timer.unref();
  }

  async function check(): Promise<void> {
    timer = undefined;
    timerAt = Infinity;
    checking = true;
    try {
      const now = Date.now();
      const due = [...entries].filter(([, entry]) => entry.due <= now);
      await Promise.all(
        due.map(async ([file, entry]) => {
          let st;
          try {
            // lstat: the entry itself, never what a symlink points to.
            st = await fs.lstat(file);
          } catch {
            if (entries.get(file) === entry) entries.delete(file); // gone (moved away, deleted): nothing to do
            return;
          }
          if (entries.get(file) !== entry) return; // touched or forgotten meanwhile
          if (st.isDirectory()) {
            entries.delete(file); // subfolders are never documents
            return;
          }
          if (!st.isFile()) {
            // A symlink, a FIFO…: nothing to wait for; handed on at once to be refused
            // (file-job.ts reads only regular files) and moved out of the way with a reason.
            entries.delete(file);
            opts.onReady(file, 0);
            return;
          }
          if (!entry.seen || entry.seen.size !== st.size || entry.seen.mtimeMs !== st.mtimeMs) {
            entry.seen = { size: st.size, mtimeMs: st.mtimeMs };
            entry.since = now;
            entry.due = now + opts.stableMs;
            return;
          }
          if (now - entry.since >= opts.stableMs && st.size > 0) {
            entries.delete(file);
            opts.onReady(file, st.size);
            return;
          }
          entry.due = st.size > 0 ? entry.since + opts.stableMs : now + opts.intervalMs;
        }),
      );
    } finally {
      checking = false;
      schedule();
    }
  }

  return {
    touch(file) {
      if (stopped) return;
      entries.set(file, { seen: null, since: 0, due: 0 });
      schedule();
    },
    forget(file) {
      entries.delete(file);
    },
    has(file) {
      return entries.has(file);
    },
    get size() {
      return entries.size;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      entries.clear();
    },
  };
}
