/**
 * What happens at the top level of one watched folder, two ways (CONTRACT §13):
 *
 * - local folders: the OS's own notifications (`fs.watch` on the folder alone: inotify,
 *   FSEvents, ReadDirectoryChangesW). Each event names the entry that changed; nothing is
 *   listed or stat-ed per event. chokidar, which this replaced for local folders, lists the
 *   whole folder and stats every entry again on each event and puts a watch on every file,
 *   which for a batch of 300 files costs more than signing them (docs/PERFORMANCE.md, watch).
 * - network shares (`--poll`): chokidar's stat polling, where events do not reach Sello.
 *
 * Both report names only; whether a name is a document, and when it is ready, is decided by
 * the caller (file-names.ts, settle.ts).
 */
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface DirEvents {
  /** `file` (directly in the folder) was added, changed, renamed or removed. */
  changed(file: string): void;
  /** `file` is gone (polling only; a local watch reports it as `changed`). */
  removed(file: string): void;
  /** The folder's notifications may have missed something (or cannot tell which name): list it again. */
  relist(): void;
  /** An error; `stopped`: the watch broke (the folder removed…) and is closed, watching again is up to the caller. */
  error(err: Error, stopped: boolean): void;
}

export interface DirWatch {
  close(): Promise<void>;
}

/** Starts notifications for the top level of `dir`; throws when the folder cannot be watched (missing, not readable). */
export function watchLocalDir(dir: string, on: DirEvents): DirWatch {
  const watcher = fsSync.watch(dir, { persistent: true }, (_event, name) => {
    if (name === null || name === '') on.relist();
    else on.changed(path.join(dir, name.toString()));
  });
  let closed = false;
  watcher.on('error', (err) => {
    if (closed) return;
    closed = true;
    watcher.close();
    on.error(err, true);
  });
  return {
    close() {
      closed = true;
      watcher.close();
      return Promise.resolve();
    },
  };
}

/** Stat polling every `intervalMs` (network shares), one level deep, never into `own` subfolders. Resolves once the first scan is done. */
export async function watchPolledDir(dir: string, own: ReadonlySet<string>, intervalMs: number, on: DirEvents): Promise<DirWatch> {
  // Loaded by the first polled folder: most offices have none, and a start need not load it (issue 17).
  const { watch: chokidarWatch } = await import('chokidar');
  const watcher = chokidarWatch(dir, {
    depth: 0,
    ignoreInitial: false,
    usePolling: true,
    interval: intervalMs,
    binaryInterval: intervalMs,
    ignored: (p) => own.has(p) || (p !== dir && path.dirname(p) !== dir),
    // A symlink is reported as itself, never as what it points to (file-job.ts refuses it).
    followSymlinks: false,
  });
  const seen = (file: string) => {
    if (path.dirname(file) === dir) on.changed(file);
  };
  watcher.on('add', seen).on('change', seen);
  watcher.on('unlink', (file) => on.removed(file));
  watcher.on('error', (err) => on.error(err instanceof Error ? err : new Error(String(err)), false));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { close: () => watcher.close() };
}

/** The names of the files directly in `dir`; `null` when it cannot be read (removed, no access). */
export async function listFiles(dir: string): Promise<string[] | null> {
  try {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    return entries.filter((e) => !e.isDirectory()).map((e) => e.name);
  } catch {
    return null;
  }
}

/** What tells one folder from another created later at the same path. */
export interface DirIdentity {
  dev: number;
  ino: number;
}

/** The identity of the folder at `dir`; `null` when there is none (removed, not a folder, no access). */
export async function dirIdentity(dir: string): Promise<DirIdentity | null> {
  try {
    const st = await fs.stat(dir);
    return st.isDirectory() ? { dev: st.dev, ino: st.ino } : null;
  } catch {
    return null;
  }
}

/**
 * Creates each of `subfolders` that is missing, one level only: never a whole path (a
 * configured folder on a drive that is not mounted must not be made on the system disk).
 * Returns those that could not be created.
 */
export async function ensureSubfolders(dir: string, subfolders: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const sub of subfolders) {
    try {
      await fs.mkdir(sub);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') missing.push(path.relative(dir, sub) || sub);
    }
  }
  return missing;
}
