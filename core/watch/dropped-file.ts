/**
 * Reading a file dropped in a watched folder, taking only what a person put in the folder
 * itself: a regular file, its own one name (issue 15: a symlink in the folder to a PDF outside
 * it was read, signed with the office's certificate, and its signed copy written to
 * `firmados/` for whoever can write in the folder to take).
 *
 * - `lstat` first: a symlink, a FIFO, a device… is refused without being opened (opening a
 *   FIFO would wait for a writer forever, a device may act on being opened).
 * - opened with `O_NOFOLLOW` (where the OS has it: a symlink put in its place since the `lstat`
 *   fails to open) and `O_NONBLOCK` (a FIFO swapped in does not block the open);
 * - `fstat` of what was opened: a regular file, and the same one the `lstat` saw (else the name
 *   changed hands in between: looked at again later);
 * - one link only: a hard link is another name for a file that may be anywhere on the same
 *   file system, a file the person who made the link could not necessarily read. Refused:
 *   documents are copied, saved or scanned into the folder, which gives them a name of their
 *   own (docs/folders.md).
 */
import fs from 'node:fs/promises';
import { constants, type Stats } from 'node:fs';
import type { FileFailure } from './error-text.js';

/** What reading a dropped file gave. */
export type DroppedFile =
  /** Its bytes, and what its signed copy keeps of it (`mode`, rw bits only). */
  | { kind: 'file'; bytes: Buffer; mode: number; mtimeMs: number }
  /** Gone, or a folder: nothing to do. */
  | { kind: 'gone' }
  /** Held by its writer (Windows shares lock while writing), or replaced while being opened: look again later. */
  | { kind: 'busy' }
  /** Not a document dropped in the folder: goes to the error folder, unread. */
  | { kind: 'refused'; failure: FileFailure };

const LOCKED = new Set(['EBUSY', 'EPERM', 'EACCES', 'EAGAIN']);
/** 0 where the OS has no such flag (Windows): the `lstat`/`fstat` comparison still holds there. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

/** Read and write bits for user, group and others: what a signed copy keeps of its original's mode. */
const READ_WRITE_BITS = 0o666;

/** The mode a file made from one with `stats` is given: its read and write bits (no execute, setuid, sticky). */
export function keptMode(stats: Pick<Stats, 'mode'>): number {
  return stats.mode & READ_WRITE_BITS;
}

/** The mode of the regular file at `file`, for what Sello writes from it; `undefined` when it is not one (or gone). */
export async function modeOf(file: string): Promise<number | undefined> {
  try {
    const st = await fs.lstat(file);
    return st.isFile() ? keptMode(st) : undefined;
  } catch {
    return undefined;
  }
}

/** Why `st` is not a document dropped in the folder, or `undefined` when it is one. */
function refusal(st: Stats): DroppedFile | undefined {
  if (st.isSymbolicLink()) return symlinkRefused();
  if (st.isDirectory()) return { kind: 'gone' }; // a subfolder named like a PDF: never watched
  if (!st.isFile()) {
    return { kind: 'refused', failure: { code: 'not_regular_file', detail: 'No es un archivo común: es una tubería (FIFO), un socket o un dispositivo.' } };
  }
  if (st.nlink > 1) {
    return {
      kind: 'refused',
      failure: { code: 'hard_link', detail: `El archivo tiene ${st.nlink} nombres (enlaces duros): es el mismo archivo que otro que puede estar fuera de la carpeta.` },
    };
  }
  return undefined;
}

function symlinkRefused(): DroppedFile {
  return { kind: 'refused', failure: { code: 'symlink', detail: 'Es un enlace simbólico (un acceso directo) a otro archivo, no un archivo copiado en la carpeta.' } };
}

function fromErrno(err: unknown): DroppedFile {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'gone' };
  if (LOCKED.has(code)) return { kind: 'busy' };
  throw err;
}

/**
 * Reads `file` if it is a regular file of its own in the folder.
 *
 * @example
 *   const read = await readDroppedFile('/srv/facturas/f.pdf');
 *   if (read.kind === 'file') sign(read.bytes);
 */
export async function readDroppedFile(file: string): Promise<DroppedFile> {
  let seen: Stats;
  try {
    seen = await fs.lstat(file);
  } catch (err) {
    return fromErrno(err);
  }
  const refused = refusal(seen);
  if (refused) return refused;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING);
  } catch (err) {
    // ELOOP (EMLINK on the BSDs): a symlink was put in the file's place since the lstat.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') return symlinkRefused();
    return fromErrno(err);
  }
  try {
    const opened = await handle.stat();
    const refusedNow = refusal(opened);
    if (refusedNow) return refusedNow;
    if (opened.ino !== seen.ino || opened.dev !== seen.dev) return { kind: 'busy' };
    const bytes = await handle.readFile();
    return { kind: 'file', bytes, mode: keptMode(opened), mtimeMs: opened.mtimeMs };
  } catch (err) {
    return fromErrno(err);
  } finally {
    await handle.close();
  }
}
