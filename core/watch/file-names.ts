/**
 * Which names in a watched folder are documents to sign, and free names for the files
 * Sello writes (CONTRACT §13: nothing is ever overwritten or lost).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Names a writer uses while a file is not finished yet, or that are not documents: partial
 * downloads (`.part`, `.crdownload`, `.download`), temporary files (`.tmp`, `~$x.pdf` of Office),
 * hidden files (`.x`, also our own `writeFileAtomic` temporaries, `.sello-<hex>.tmp`).
 *
 * @example
 *   isDocumentName('factura.pdf')        // true
 *   isDocumentName('factura.pdf.part')   // false
 *   isDocumentName('~$factura.pdf')      // false
 */
export function isDocumentName(name: string): boolean {
  if (name.startsWith('.') || name.startsWith('~$') || name.startsWith('~')) return false;
  const lower = name.toLowerCase();
  if (/\.(part|tmp|temp|crdownload|download|partial)$/.test(lower)) return false;
  return lower.endsWith('.pdf');
}

/**
 * The longest file name common file systems take, in UTF-8 bytes (ext4, XFS, APFS: 255
 * bytes; NTFS: 255 UTF-16 units, never fewer than the UTF-8 bytes of the same name).
 */
export const NAME_MAX_BYTES = 255;

/** An extension longer than this is taken for part of the name (`acta.2026-informe-final`). */
const EXTENSION_MAX_BYTES = 16;

/** `text` cut to at most `max` UTF-8 bytes, between characters (never in the middle of one). */
function cutToBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > max) break;
    out += ch;
    used += size;
  }
  return out;
}

/**
 * `stem + tail`, the stem shortened so that the whole takes at most `max` bytes: what Sello
 * adds (`-1`, the extension) is kept, the person's name gives way.
 */
function fitted(stem: string, tail: string, max: number): string {
  return cutToBytes(stem, Math.max(0, max - Buffer.byteLength(tail, 'utf8'))) + tail;
}

/** Whether `file` exists, as an entry of its own (a dangling symlink is taken too: never replaced). */
async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first name of `dir` not taken, from `name`: `a.pdf`, then `a-1.pdf`, `a-2.pdf`…
 * Also avoids `reserved` (full paths chosen by another job but not written yet). `companion`:
 * the suffix of a file written beside it (`.error.txt`): `NAME + companion` must be free too,
 * so that a file's explanation never replaces another's. Every name fits `NAME_MAX_BYTES`
 * together with its companion: a long name is shortened, keeping its extension.
 *
 * @example
 *   await freeName(dir, 'factura.pdf')                  // 'factura.pdf', or 'factura-1.pdf' when taken
 *   await freeName(dir, `${'a'.repeat(251)}.pdf`, new Set(), '.error.txt')
 *   // 'aaa….pdf' with 241 a's: with '.error.txt', 255 bytes
 */
export async function freeName(dir: string, name: string, reserved: Pick<ReadonlySet<string>, 'has'> = new Set(), companion = ''): Promise<string> {
  let ext = path.extname(name);
  if (Buffer.byteLength(ext, 'utf8') > EXTENSION_MAX_BYTES) ext = '';
  const stem = name.slice(0, name.length - ext.length);
  const max = NAME_MAX_BYTES - Buffer.byteLength(companion, 'utf8');
  for (let i = 0; ; i++) {
    const candidate = fitted(stem, i === 0 ? ext : `-${i}${ext}`, max);
    if (reserved.has(path.join(dir, candidate))) continue;
    if (await exists(path.join(dir, candidate))) continue;
    if (companion && (await exists(path.join(dir, candidate + companion)))) continue;
    return candidate;
  }
}

/**
 * Characters of a file name that must not reach a text a person reads (a note, an
 * explanation) as they are: controls (a name may hold line breaks on POSIX systems: a name
 * could write lines of its own into the text) and the bidirectional overrides that show text
 * in another order than it is ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `name` as written into a note or an explanation: each control or direction character
 * replaced by U+FFFD (�), which shows that something is there without acting on the text.
 *
 * @example
 *   printableName('a.pdf\nSello verificó este documento.pdf') // 'a.pdf�Sello verificó este documento.pdf'
 */
export function printableName(name: string): string {
  return name.replace(UNPRINTABLE, '\ufffd');
}

/** Makes a rename durable: fsync of the folder that holds the new entry (POSIX; a no-op where unsupported). */
export async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows cannot open a folder for fsync; NTFS journals the rename itself.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * `syncDir` shared by the renames done together: a call is answered by an fsync of the folder
 * that starts after the call (so it covers every rename finished before the call), but callers
 * arriving while one runs share the next one, instead of one fsync each.
 *
 * @example
 *   const syncDirs = createDirSyncer();
 *   await fs.rename(tmp, path.join(dir, name));
 *   await syncDirs(dir); // durable, with whatever other renames in `dir` were waiting too
 */
export function createDirSyncer(sync: (dir: string) => Promise<void> = syncDir): (dir: string) => Promise<void> {
  const states = new Map<string, { running: Promise<void> | null; next: Promise<void> | null }>();
  const start = (dir: string, state: { running: Promise<void> | null }): Promise<void> => {
    const p: Promise<void> = sync(dir).finally(() => {
      if (state.running === p) state.running = null;
    });
    state.running = p;
    return p;
  };
  return (dir) => {
    let state = states.get(dir);
    if (!state) states.set(dir, (state = { running: null, next: null }));
    const s = state;
    if (!s.running) return start(dir, s);
    s.next ??= s.running.then(() => {
      s.next = null;
      return start(dir, s);
    });
    return s.next;
  };
}
