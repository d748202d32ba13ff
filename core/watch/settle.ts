/**
 * Write-finish detection (CONTRACT §13 "signed once its writing has finished"): a file is
 * ready when its size and modification time have not changed for `stableMs`. Checked by
 * our own stat polling rather than chokidar's `awaitWriteFinish`, so the same rule holds
 * for OS events, polling on network shares and the initial scan, and a file that is not
 * complete yet (no `%%EOF`, locked by its writer) can be sent back to wait.
 */
import fs from 'node:fs/promises';

export interface SettleOptions {
  stableMs: number;
  intervalMs: number;
  onReady(file: string): void;
}

export interface Settler {
  /** (Re)starts the wait for `file`: called on add and change events and when a file must wait again. */
  touch(file: string): void;
  forget(file: string): void;
  /** Files still settling. */
  readonly size: number;
  stop(): void;
}

interface Entry {
  size: number;
  mtimeMs: number;
  since: number;
}

export function createSettler(opts: SettleOptions): Settler {
  const entries = new Map<string, Entry | null>();
  let checking = false;
  const timer = setInterval(() => void check(), opts.intervalMs);
  timer.unref();

  async function check(): Promise<void> {
    if (checking) return;
    checking = true;
    try {
      const now = Date.now();
      await Promise.all(
        [...entries].map(async ([file, entry]) => {
          let st;
          try {
            st = await fs.stat(file);
          } catch {
            entries.delete(file); // gone (moved away, deleted): nothing to do
            return;
          }
          if (!entries.has(file)) return;
          if (!entry || entry.size !== st.size || entry.mtimeMs !== st.mtimeMs) {
            entries.set(file, { size: st.size, mtimeMs: st.mtimeMs, since: now });
            return;
          }
          if (now - entry.since >= opts.stableMs && st.size > 0) {
            entries.delete(file);
            opts.onReady(file);
          }
        }),
      );
    } finally {
      checking = false;
    }
  }

  return {
    touch(file) {
      entries.set(file, null);
    },
    forget(file) {
      entries.delete(file);
    },
    get size() {
      return entries.size;
    },
    stop() {
      clearInterval(timer);
      entries.clear();
    },
  };
}
