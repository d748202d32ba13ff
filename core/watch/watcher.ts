/**
 * Watches every configured folder (CONTRACT §13), one level deep (never into its own
 * `firmados/`, `errores/`, `originales/`): OS events for local folders, stat polling for
 * network shares (dir-watch.ts). A listing at start processes what was dropped while Sello
 * was stopped; local folders are listed again now and then, in case the OS dropped an event.
 * Files settle (settle.ts), then go through a bounded queue to file-job.ts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { isStorageFault, type Store } from '../db/index.js';
import { ATOMIC_TEMPORARY } from '../signing/sign-file.js';
import type { Logger } from '../log/index.js';
import type { SigningRequests, SigningWorker } from '../signing/requests/index.js';
import { dirIdentity, ensureSubfolders, listFiles, watchLocalDir, watchPolledDir, type DirEvents, type DirIdentity, type DirWatch } from './dir-watch.js';
import { isDocumentName } from './file-names.js';
import { createFileJobs, type Outcome } from './file-job.js';
import { listFolders, type FolderRow } from './folders.js';
import { unfinished } from './ledger.js';
import { createWorkQueue } from './queue.js';
import { createSettler, type Settler } from './settle.js';
import type { WatchSettings } from './settings.js';

export interface FolderWatcher {
  /** Starts watching every stored folder and resumes unfinished files. */
  start(): Promise<void>;
  /** Picks up folders added or removed (by the admin API or `sello folders` while running). */
  reload(): Promise<void>;
  /** Resolves when no file is settling or being handled (waiting for a PIN does not count). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface FolderWatcherDeps {
  store: Store;
  requests: SigningRequests;
  worker: Pick<SigningWorker, 'run'>;
  log: Logger;
  settings: WatchSettings;
}

interface Watched {
  folder: FolderRow;
  watch: DirWatch;
  /** The folder watched (device and inode): a folder deleted and created again is another one, watched anew. */
  identity: DirIdentity;
  /**
   * Files of the folder handled already and left where they are (waiting for a PIN, or a move
   * that failed): a listing of the folder does not take them again, an event about them does.
   */
  handled: Set<string>;
  /** A listing of the folder is running / wanted after it. */
  listing: boolean;
  listAgain: boolean;
}

/**
 * Bytes of PDFs read and being signed at once, whatever the concurrency: each costs a few
 * times its size in memory until its signed copy is written (its bytes, their base64 for the
 * request, the signed copy). A file larger than this is still signed, alone.
 */
const MAX_BYTES_AT_ONCE = 32 * 1024 * 1024;

/**
 * A file whose handling met a full disk or a store locked by another program (`storage_full`,
 * `storage_busy`) is looked at again this long after, until it goes through: nothing of the
 * failed step was stored, and the ledger (one row per content) keeps it from being signed twice.
 * Not sooner: each try against a locked store waits out its busy timeout.
 */
const STORAGE_RETRY_MS = 2_000;

/** The temporary name `writeFileAtomic` wrote before its rename in versions before issue 15: `.NAME.<12 hex>.tmp`. */
const OLD_ATOMIC_TEMPORARY = /^\..+\.[0-9a-f]{12}\.tmp$/;

export function createFolderWatcher(deps: FolderWatcherDeps): FolderWatcher {
  const { store, requests, log, settings } = deps;
  const jobs = createFileJobs({ store, requests, worker: deps.worker, log, incompleteGraceMs: settings.incompleteGraceMs });
  const queue = createWorkQueue(settings.concurrency, MAX_BYTES_AT_ONCE);
  const watched = new Map<string, Watched>();
  const settler: Settler = createSettler({ stableMs: settings.stableMs, intervalMs: Math.min(100, settings.stableMs), onReady: (file, size) => enqueue(file, size) });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  /** Folders that could not be watched at the last try (missing, no access): warned about once. */
  const unavailable = new Set<string>();
  /** Files and rows to look at again after a storage fault. */
  const retries = new Set<NodeJS.Timeout>();

  const folderOf = (file: string): FolderRow | undefined => watched.get(path.dirname(file))?.folder;

  function after(file: string, outcome: Outcome): void {
    if (stopped) return;
    if (outcome === 'retry') settler.touch(file);
    else watched.get(path.dirname(file))?.handled.add(file);
  }

  function enqueue(file: string, size: number): void {
    const folder = folderOf(file);
    if (!folder) return;
    queue.push(
      file,
      async (release) => {
        try {
          after(file, await jobs.handle(folder, path.basename(file), release));
        } catch (err) {
          after(file, 'failed');
          if (isStorageFault(err)) lookAgainLater(folder, file, err.code);
          else log.error('watched file crashed', { folderId: folder.id, err });
        }
      },
      size,
    );
  }

  function resumeRow(folder: FolderRow, rowId: string): void {
    const file = path.join(folder.path, unfinished(store, folder.id).find((r) => r.id === rowId)?.name ?? rowId);
    queue.push(file, async (release) => {
      const row = unfinished(store, folder.id).find((r) => r.id === rowId);
      if (!row) return;
      try {
        await jobs.resume(folder, row, release);
      } catch (err) {
        if (isStorageFault(err)) lookAgainLater(folder, file, err.code);
        else log.error('watched file crashed', { folderId: folder.id, err });
      }
    });
  }

  /**
   * After a storage fault, `file` is handled again by itself once the store can be written
   * (no restart needed). Still in the folder: it settles and is handled again (its ledger row,
   * if one was stored, is found by its content). Gone (its original moved, the ledger not
   * updated): the folder's rows left `signing` are resumed, as at start.
   */
  function lookAgainLater(folder: FolderRow, file: string, code: string): void {
    log.warn('watched file postponed: the store cannot be written', { folderId: folder.id, code, retryMs: STORAGE_RETRY_MS });
    const timer = setTimeout(() => {
      retries.delete(timer);
      const w = watched.get(folder.path);
      if (stopped || w?.folder.id !== folder.id) return;
      void fs.access(file).then(
        () => changed(w, file),
        () => {
          if (stopped || watched.get(folder.path) !== w) return;
          for (const row of unfinished(store, folder.id)) if (row.state === 'signing') resumeRow(folder, row.id);
        },
      );
    }, STORAGE_RETRY_MS);
    timer.unref();
    retries.add(timer);
  }

  /** Rows waiting for a PIN whose request moved on (approved and signed, ended failed, or rejected). */
  function checkWaiting(): void {
    for (const { folder } of watched.values()) {
      for (const row of unfinished(store, folder.id)) {
        if (row.state !== 'waiting_pin' || !row.request_id) continue;
        const full = requests.get(folder.environment, row.request_id);
        if (full.request.status === 'signed' || full.request.status === 'failed' || full.signatures.some((s) => s.state === 'rejected')) resumeRow(folder, row.id);
      }
    }
  }

  /** Something happened to `file`: a document starts (again) its wait to be ready. */
  function changed(w: Watched, file: string): void {
    if (path.dirname(file) !== w.folder.path || !isDocumentName(path.basename(file))) return;
    w.handled.delete(file);
    settler.touch(file);
  }

  /**
   * Lists a local folder: every document not settling, queued, running or handled already
   * starts its wait. At start (what was dropped while Sello was stopped) and then on every
   * reload, so that a file whose event the OS dropped (a full inotify queue…) is still signed.
   */
  async function relist(w: Watched): Promise<void> {
    if (w.listing) {
      w.listAgain = true;
      return;
    }
    w.listing = true;
    try {
      do {
        w.listAgain = false;
        const names = await listFiles(w.folder.path);
        if (watched.get(w.folder.path) !== w || stopped) return;
        if (names === null) {
          // The folder is gone or unreadable: watched again by a later reload, once it is back.
          await drop(w, 'watched folder cannot be read');
          return;
        }
        const present = new Set(names.map((n) => path.join(w.folder.path, n)));
        for (const file of w.handled) if (!present.has(file)) w.handled.delete(file);
        for (const file of present) {
          if (!isDocumentName(path.basename(file)) || w.handled.has(file) || settler.has(file) || queue.has(file)) continue;
          settler.touch(file);
        }
      } while (w.listAgain);
    } finally {
      w.listing = false;
    }
  }

  async function drop(w: Watched, why: string, err?: unknown): Promise<void> {
    if (watched.get(w.folder.path) !== w) return;
    watched.delete(w.folder.path);
    unavailable.add(w.folder.id);
    log.warn(why, { folderId: w.folder.id, err });
    await w.watch.close().catch(() => undefined);
  }

  async function add(folder: FolderRow): Promise<void> {
    const identity = await dirIdentity(folder.path);
    // stop() may have come during any await of a reload: nothing is watched after it (a watch
    // opened then would keep the process alive after a graceful stop).
    if (stopped) return;
    if (!identity) {
      if (!unavailable.has(folder.id)) log.warn('cannot watch folder', { folderId: folder.id, err: new Error('the folder is missing or not a folder') });
      unavailable.add(folder.id);
      return;
    }
    // Back after being deleted (or its subfolders deleted): Sello's own subfolders are made again.
    const missing = await ensureSubfolders(folder.path, [folder.output_dir, folder.error_dir, folder.originals_dir]);
    if (missing.length > 0) log.warn('cannot create the subfolders of a watched folder', { folderId: folder.id, missing });
    if (stopped) return;
    const w: Watched = { folder, identity, watch: { close: () => Promise.resolve() }, handled: new Set(), listing: false, listAgain: false };
    const events: DirEvents = {
      changed: (file) => changed(w, file),
      removed: (file) => settler.forget(file),
      relist: () => void relist(w),
      error: (err, broken) => {
        if (broken) void drop(w, 'watch of the folder stopped', err);
        else log.warn('watch error', { folderId: folder.id, err });
      },
    };
    watched.set(folder.path, w);
    try {
      if (folder.poll === 1) {
        const own = new Set([folder.output_dir, folder.error_dir, folder.originals_dir]);
        w.watch = await watchPolledDir(folder.path, own, settings.pollIntervalMs, events);
      } else {
        w.watch = watchLocalDir(folder.path, events);
      }
      // Listed once the watch is open, whatever its kind: a file written between a polled
      // watch's first read of the folder and its first poll may change nothing the poll compares
      // against, and would then wait for a restart. What is already settling or queued is skipped.
      await relist(w);
    } catch (err) {
      watched.delete(folder.path);
      await w.watch.close().catch(() => undefined);
      if (!unavailable.has(folder.id)) log.warn('cannot watch folder', { folderId: folder.id, err });
      unavailable.add(folder.id);
      return;
    }
    if (stopped || watched.get(folder.path) !== w) {
      // Stopped (or replaced) while the watch was being opened: stop() closed what it found then.
      if (watched.get(folder.path) === w) watched.delete(folder.path);
      await w.watch.close().catch(() => undefined);
      return;
    }
    unavailable.delete(folder.id);
    // Left mid-way by a previous process (signed but not written out, and the file already moved).
    for (const row of unfinished(store, folder.id)) if (row.state === 'signing') resumeRow(folder, row.id);
    log.info('watching folder', { folderId: folder.id });
  }

  /**
   * Removes what a process killed in the middle of `writeFileAtomic` left in the folders Sello
   * writes to (`.sello-<16 hex>.tmp`, or `.NAME.<12 hex>.tmp` of earlier versions). Only at
   * start, before any job of this process runs: the data folder is locked to one Sello, so no
   * other writer can own such a file.
   */
  async function sweepTemporaries(folders: FolderRow[]): Promise<void> {
    const dirs = new Set(folders.flatMap((f) => [f.output_dir, f.error_dir, f.originals_dir]));
    for (const dir of dirs) {
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if (!ATOMIC_TEMPORARY.test(name) && !OLD_ATOMIC_TEMPORARY.test(name)) continue;
        await fs.rm(path.join(dir, name), { force: true }).catch((err: unknown) => log.warn('could not remove a leftover temporary file', { err }));
      }
    }
  }

  async function reload(): Promise<void> {
    if (stopped) return;
    const folders = listFolders(store);
    const wanted = new Map(folders.map((f) => [f.path, f]));
    for (const [dir, w] of watched) {
      const now = wanted.get(dir);
      if (!now || now.id !== w.folder.id) {
        watched.delete(dir);
        await w.watch.close();
        continue;
      }
      // Deleted (and maybe created again): the watch of the old folder reports nothing more,
      // on Linux not even an error. Dropped here, watched again below once the folder is back.
      const identity = await dirIdentity(dir);
      if (watched.get(dir) !== w) continue;
      if (!identity || identity.dev !== w.identity.dev || identity.ino !== w.identity.ino) {
        await drop(w, identity ? 'watched folder was replaced' : 'watched folder is gone');
        continue;
      }
      // Its own subfolders deleted by someone: made again, so the next file has somewhere to go.
      await ensureSubfolders(dir, [now.output_dir, now.error_dir, now.originals_dir]);
      if (now.poll !== 1) void relist(w);
    }
    for (const folder of folders) if (!watched.has(folder.path)) await add(folder);
  }

  return {
    async start() {
      await sweepTemporaries(listFolders(store));
      await reload();
      checkWaiting();
      timer = setInterval(() => {
        void reload()
          .then(checkWaiting)
          .catch((err: unknown) => log.error('watch reload failed', { err }));
      }, settings.reloadMs);
      timer.unref();
    },
    reload,
    async idle() {
      for (;;) {
        await queue.idle();
        if (settler.size === 0 && queue.size === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      for (const t of retries) clearTimeout(t);
      retries.clear();
      settler.stop();
      await Promise.all([...watched.values()].map((w) => w.watch.close()));
      watched.clear();
      await queue.stop();
    },
  };
}
