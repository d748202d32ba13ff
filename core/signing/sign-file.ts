import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SelloError } from '../errors/index.js';
import type { StampOptions } from '../pdf/index.js';
import type { KeySource } from './key-sources/index.js';
import type { PdfThread } from './pdf-thread/index.js';

/**
 * The temporary name `writeFileAtomic` writes before its rename: fixed length, whatever the
 * final name (a name of 235+ bytes plus `.NAME.<hex>.tmp` went past the 255-byte limit of
 * common file systems); a leading dot, so folder watchers take it for a hidden file.
 */
export const ATOMIC_TEMPORARY = /^\.sello-[0-9a-f]{16}\.tmp$/;

/**
 * Writes `parts` to `file` atomically: a temporary file in the same folder, fsync,
 * rename. A crash leaves either the old file or the new one, never half of one.
 * `mode`: the permissions to give the file exactly (no umask), e.g. those of the document it
 * was made from; without it, 0644 less the umask.
 */
export async function writeFileAtomic(file: string, parts: Buffer[], mode?: number): Promise<void> {
  const tmp = path.join(path.dirname(file), `.sello-${crypto.randomBytes(8).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    for (const part of parts) await handle.write(part);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export interface SignFileOptions {
  stamp?: StampOptions;
  signingTime?: Date;
  timestampUrl?: string;
  caFile?: string;
}

/** Signs the PDF at `input` into `output` on the PDF thread `pdfs`; the input is never touched. */
export async function signPdfFile(pdfs: PdfThread, input: string, output: string, signer: KeySource, opts: SignFileOptions = {}): Promise<void> {
  if (path.resolve(input) === path.resolve(output)) {
    throw new SelloError('validation_failed', {
      detail: 'El archivo firmado no puede reemplazar al original: indique otro --out.',
      fields: { out: ['debe ser distinto del archivo de entrada'] },
    });
  }
  let pdf: Buffer;
  try {
    pdf = await fs.readFile(input);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SelloError('pdf_invalid', { detail: code === 'ENOENT' ? `No existe el archivo ${input}.` : `No se pudo leer ${input} (${code}).` });
  }
  // Written as two chunks: the original and the update are never joined in memory.
  const { original, update } = await pdfs.sign(pdf, signer, opts);
  await writeFileAtomic(output, [original, update]);
}
