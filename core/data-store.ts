/**
 * The data folder's store opened for a one-shot command (`sello books`, `keys`, `certs`…) or for
 * the agent. Kept apart from the composition root (app.ts) so that a short command loads the
 * store and nothing of the server.
 */
import path from 'node:path';
import { sealStoredP12 } from './certificates/p12-at-rest.js';
import { prepareDataDir, restrictDataDir } from './data-dir.js';
import { openStore, type Store } from './db/index.js';
import { loadSecretBox } from './secrets/index.js';

/** The store file inside a data folder. */
export function storeFile(dataDir: string): string {
  return path.join(dataDir, 'sello.db');
}

/**
 * Opens the data folder's store: with migrations, and the steps that need the data folder's key
 * (a `.p12` of an earlier version sealed at rest).
 */
export async function openDataStore(dataDir: string): Promise<Store> {
  prepareDataDir(dataDir);
  const store = await openStore(storeFile(dataDir));
  try {
    // The store's files, just created by SQLite with the umask's mode.
    restrictDataDir(dataDir);
    sealStoredP12(store, () => loadSecretBox(dataDir));
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

/** Runs `fn` with the data folder's store open, and closes it whatever happens. */
export async function withDataStore<T>(dataDir: string, fn: (store: Store) => Promise<T> | T): Promise<T> {
  const store = await openDataStore(dataDir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
