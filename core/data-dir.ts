import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/**
 * Files Sello keeps in its data folder: the store, the key that seals its secrets, the lock.
 * The lock is a SQLite file whose journal stays in memory, so it has no siblings to list.
 */
const OWN_FILES = ['sello.db', 'sello.db-wal', 'sello.db-shm', 'secret.key', 'sello.lock'];
/** Folders Sello keeps there, each with files of its own: the test CA (its key). */
const OWN_FOLDERS = ['test-ca'];

/**
 * The data folder: created 0700 (it holds keys and the store), and tightened when found
 * looser (a folder made by hand, or by a version that did not restrict it). One running agent
 * per folder, guarded by the lock the agent holds on `sello.lock` (`lockDataDir`), so two
 * agents never deliver the same webhooks.
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

const LOCK_FILE = 'sello.lock';
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** Where SQLite keeps `PRAGMA user_version` in a database's header: here, the holder's pid. */
const USER_VERSION_OFFSET = 60;
/**
 * Lock files this process holds, by real path. Closing any descriptor of a file drops every
 * POSIX lock the process holds on it (fcntl semantics), so this process never opens a lock file
 * it holds for reading: a second lock of the same folder is refused from here.
 */
const held = new Set<string>();

/**
 * Takes the folder's lock; returns the function that releases it.
 *
 * The lock is a lock the operating system holds on an open file, so it goes away with its
 * holder however that ends (kill -9, a crash, a power cut): a pid written in a file could not
 * say that, since a killed process stays a zombie a moment and after a reboot the pid may be
 * another program's. Node has no flock; SQLite does the locking: `sello.lock` is a one-page
 * database opened in `locking_mode = EXCLUSIVE`, whose first write takes an exclusive lock
 * (fcntl on POSIX, LockFileEx on Windows) that the connection keeps until it is closed. A
 * second process gets SQLITE_BUSY at once (no busy timeout). The holder's pid is written into
 * the header (`user_version`) only to name it in the refusal; it is never a test of ownership.
 * The file stays after release: its existence means nothing, only the lock does.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(fs.realpathSync(dir), LOCK_FILE);
  if (held.has(file)) throw lockedError(dir, process.pid);
  // Created 0600 here rather than by SQLite (0644 before the umask); a pid is no secret, but
  // every Sello file in the folder is private.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (let attempt = 0; ; attempt++) {
    const db = new BetterSqlite3(file, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      // The journal in memory: no `sello.lock-journal` beside the lock. (OFF is refused by
      // better-sqlite3's defensive mode.) What the file holds is only informative, so neither a
      // journal nor an fsync is worth having; a file torn by a power cut is rewritten below.
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
      db.exec('BEGIN EXCLUSIVE');
      db.pragma(`user_version = ${process.pid}`);
      db.exec('COMMIT');
    } catch (err) {
      db.close();
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'))) {
        throw lockedError(dir, holderPid(file));
      }
      if (attempt === 0 && (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')) {
        // Not a database: the text file with a pid of an earlier Sello, or a lock torn by a
        // power cut. SQLite could read its header, so nobody held it then: empty it (in place,
        // never unlinked, so a process that opened it meanwhile still locks the same file) and
        // take it. Should another start empty it too, that start then finds it locked.
        try {
          fs.truncateSync(file, 0);
        } catch {
          // Left as it is: the next attempt reports what SQLite finds.
        }
        continue;
      }
      throw err;
    }
    held.add(file);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      // Closing the connection releases the lock. The file stays: deleting it would let a
      // start that had already opened it lock the deleted file while a third creates a new one.
      db.close();
      held.delete(file);
    };
  }
}

function lockedError(dir: string, pid: number | undefined): DataDirLockedError {
  return new DataDirLockedError(
    pid === undefined
      ? `Otro proceso de Sello ya usa la carpeta de datos ${dir}.`
      : `Otro proceso de Sello (pid ${pid}) ya usa la carpeta de datos ${dir}.`,
  );
}

/**
 * The holder's pid as it wrote it in the lock's header, for the message only; undefined when
 * the file does not say (still being written, emptied). Read as bytes: the holder's exclusive
 * lock keeps SQLite readers out, and it covers bytes SQLite reserves beyond the data (offset
 * 1 GiB), so the header stays readable on Windows too. Called only by a process that does not
 * hold this lock (see `held`), as closing the descriptor would drop it.
 */
function holderPid(file: string): number | undefined {
  const header = Buffer.alloc(100);
  let read = 0;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      read = fs.readSync(fd, header, 0, header.length, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (read < header.length || !header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return undefined;
  const pid = header.readInt32BE(USER_VERSION_OFFSET);
  return pid > 0 ? pid : undefined;
}
