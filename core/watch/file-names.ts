/**
 * Which names in a watched folder are documents to sign, and free names for the files
 * Sello writes (CONTRACT §13: nothing is ever overwritten or lost).
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Names a writer uses while a file is not finished yet, or that are not documents: partial
 * downloads (`.part`, `.crdownload`, `.download`), temporary files (`.tmp`, `~$x.pdf` of Office),
 * hidden files (`.x`, also our own `writeFileAtomic` temporaries).
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
 * The first name of `dir` not taken, from `name`: `a.pdf`, then `a-1.pdf`, `a-2.pdf`…
 * Also avoids `reserved` (full paths chosen by another job but not written yet).
 */
export async function freeName(dir: string, name: string, reserved: Pick<ReadonlySet<string>, 'has'> = new Set()): Promise<string> {
  const ext = path.extname(name);
  const base = name.slice(0, name.length - ext.length);
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : `${base}-${i}${ext}`;
    if (reserved.has(path.join(dir, candidate))) continue;
    try {
      await fs.access(path.join(dir, candidate));
    } catch {
      return candidate;
    }
  }
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
