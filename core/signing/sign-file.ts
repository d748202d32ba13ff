import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SelloError } from '../errors/index.js';
import { signPdfParts, type CmsSigner, type StampOptions } from '../pdf/index.js';

/**
 * Writes `parts` to `file` atomically: a temporary file in the same folder, fsync,
 * rename. A crash leaves either the old file or the new one, never half of one.
 */
export async function writeFileAtomic(file: string, parts: Buffer[]): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
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

/** Signs the PDF at `input` into `output`; the input is never touched. */
export async function signPdfFile(input: string, output: string, signer: CmsSigner, opts: SignFileOptions = {}): Promise<void> {
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
  const parts = await signPdfParts(pdf, signer, opts);
  await writeFileAtomic(output, parts);
}
