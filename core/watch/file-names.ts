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
 * Also avoids `reserved` (names chosen by another job but not written yet).
 */
export async function freeName(dir: string, name: string, reserved: ReadonlySet<string> = new Set()): Promise<string> {
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
