/**
 * Watches every configured folder (CONTRACT §13) with chokidar: one level deep (never into
 * its own `firmados/`, `errores/`, `originales/`), OS events or polling for network shares,
 * the initial scan processing what was dropped while Sello was stopped. Files settle
 * (settle.ts), then go through a bounded queue to file-job.ts.
 */
import { watch, type FSWatcher } from 'chokidar';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '../db/index.js';
import type { Logger } from '../log/index.js';
import type { SigningRequests, SigningWorker } from '../signing/requests/index.js';
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
  watcher: FSWatcher;
}

/** The temporary name `writeFileAtomic` (core/signing/sign-file.ts) writes before its rename. */
const ATOMIC_TEMPORARY = /^\..+\.[0-9a-f]{12}\.tmp$/;

export function createFolderWatcher(deps: FolderWatcherDeps): FolderWatcher {
  const { store, requests, log, settings } = deps;
  const jobs = createFileJobs({ store, requests, worker: deps.worker, log, incompleteGraceMs: settings.incompleteGraceMs });
  const queue = createWorkQueue(settings.concurrency);
  const watched = new Map<string, Watched>();
  const settler: Settler = createSettler({ stableMs: settings.stableMs, intervalMs: Math.min(100, settings.stableMs), onReady: (file) => enqueue(file) });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const folderOf = (file: string): FolderRow | undefined => watched.get(path.dirname(file))?.folder;

  function after(file: string, outcome: Outcome): void {
    if (outcome === 'retry' && !stopped) settler.touch(file);
  }

  function enqueue(file: string): void {
    const folder = folderOf(file);
    if (!folder) return;
    queue.push(file, async () => {
      try {
        after(file, await jobs.handle(folder, path.basename(file)));
      } catch (err) {
        log.error('watched file crashed', { folderId: folder.id, err });
      }
    });
  }

  function resumeRow(folder: FolderRow, rowId: string): void {
    const file = path.join(folder.path, unfinished(store, folder.id).find((r) => r.id === rowId)?.name ?? rowId);
    queue.push(file, async () => {
      const row = unfinished(store, folder.id).find((r) => r.id === rowId);
      if (!row) return;
      try {
        await jobs.resume(folder, row);
      } catch (err) {
        log.error('watched file crashed', { folderId: folder.id, err });
      }
    });
  }

  /** Rows waiting for a PIN whose request moved on (approved and signed, or rejected). */
  function checkWaiting(): void {
    for (const { folder } of watched.values()) {
      for (const row of unfinished(store, folder.id)) {
        if (row.state !== 'waiting_pin' || !row.request_id) continue;
        const full = requests.get(folder.environment, row.request_id);
        if (full.request.status === 'signed' || full.signatures.some((s) => s.state === 'rejected')) resumeRow(folder, row.id);
      }
    }
  }

  async function add(folder: FolderRow): Promise<void> {
    const own = new Set([folder.output_dir, folder.error_dir, folder.originals_dir]);
    const watcher = watch(folder.path, {
      depth: 0,
      ignoreInitial: false,
      usePolling: folder.poll === 1,
      interval: settings.pollIntervalMs,
      binaryInterval: settings.pollIntervalMs,
      ignored: (p) => own.has(p) || (p !== folder.path && path.dirname(p) !== folder.path),
    });
    const seen = (file: string) => {
      if (path.dirname(file) === folder.path && isDocumentName(path.basename(file))) settler.touch(file);
    };
    watcher.on('add', seen).on('change', seen);
    watcher.on('unlink', (file) => settler.forget(file));
    watcher.on('error', (err) => log.warn('watch error', { folderId: folder.id, err }));
    watched.set(folder.path, { folder, watcher });
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    // Left mid-way by a previous process (signed but not written out, and the file already moved).
    for (const row of unfinished(store, folder.id)) if (row.state === 'signing') resumeRow(folder, row.id);
    log.info('watching folder', { folderId: folder.id });
  }

  /**
   * Removes what a process killed in the middle of `writeFileAtomic` left in the folders Sello
   * writes to (`.NAME.<12 hex>.tmp`). Only at start, before any job of this process runs: the
   * data folder is locked to one Sello, so no other writer can own such a file.
   */
  async function sweepTemporaries(folders: FolderRow[]): Promise<void> {
    const dirs = new Set(folders.flatMap((f) => [f.output_dir, f.error_dir, f.originals_dir]));
    for (const dir of dirs) {
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      for (const name of names) {
        if (!ATOMIC_TEMPORARY.test(name)) continue;
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
        await w.watcher.close();
      }
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
      settler.stop();
      await Promise.all([...watched.values()].map((w) => w.watcher.close()));
      watched.clear();
      await queue.stop();
    },
  };
}
