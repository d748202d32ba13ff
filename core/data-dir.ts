import fs from 'node:fs';
import path from 'node:path';

/**
 * The data folder: created 0700 (it holds keys and the store). One running agent
 * per folder, guarded by `sello.lock` with the owner's pid, so two agents never
 * deliver the same webhooks.
 */
export function prepareDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.accessSync(dir, fs.constants.W_OK);
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
