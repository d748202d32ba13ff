import fs from 'node:fs';
import path from 'node:path';

/** Files Sello keeps in its data folder: the store, the key that seals its secrets, the lock. */
const OWN_FILES = ['sello.db', 'sello.db-wal', 'sello.db-shm', 'secret.key', 'sello.lock'];
/** Folders Sello keeps there, each with files of its own: the test CA (its key). */
const OWN_FOLDERS = ['test-ca'];

/**
 * The data folder: created 0700 (it holds keys and the store), and tightened when found
 * looser (a folder made by hand, or by a version that did not restrict it). One running agent
 * per folder, guarded by `sello.lock` with the owner's pid, so two agents never
 * deliver the same webhooks.
 */
export function prepareDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.accessSync(dir, fs.constants.W_OK);
  restrictDataDir(dir);
}

/**
 * Takes group and other permissions off the data folder, Sello's own files in it (0600) and
 * its own folders (0700) with their files. Only what Sello made there: a data folder pointed
 * at a folder with other things in it (`--data-dir ~/algo`) keeps them as they are. Links are
 * never followed inside the folder (a link named `secret.key` is left alone).
 */
export function restrictDataDir(dir: string): void {
  restrict(dir, 0o700, fs.statSync);
  for (const name of OWN_FILES) restrict(path.join(dir, name), 0o600, fs.lstatSync);
  for (const name of OWN_FOLDERS) {
    const sub = path.join(dir, name);
    if (!restrict(sub, 0o700, fs.lstatSync)) continue;
    for (const entry of fs.readdirSync(sub, { withFileTypes: true })) {
      if (entry.isFile()) restrict(path.join(sub, entry.name), 0o600, fs.lstatSync);
    }
  }
}

/**
 * Removes from `file`'s mode the bits outside `allowed`; false when there is nothing to
 * restrict (missing, a link, not of the expected kind). A file of another user (EPERM) is
 * left as it is: only its owner or root could change it.
 */
function restrict(file: string, allowed: 0o700 | 0o600, stat: (p: string) => fs.Stats): boolean {
  let st: fs.Stats;
  try {
    st = stat(file);
  } catch {
    return false;
  }
  if (allowed === 0o700 ? !st.isDirectory() : !st.isFile()) return false;
  const mode = st.mode & 0o777;
  if ((mode & ~allowed) !== 0) {
    try {
      fs.chmodSync(file, mode & allowed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    }
  }
  return true;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the folder's lock; returns the function that releases it. */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, 'sello.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirLockedError(`Otro proceso de Sello (pid ${owner}) ya usa la carpeta de datos ${dir}.`);
      }
      // A lock left by a process that died (kill -9, power loss): take it over.
      fs.unlinkSync(file);
    }
  }
  throw new DataDirLockedError(`No se pudo tomar el bloqueo de ${file}.`);
}
