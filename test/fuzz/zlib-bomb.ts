/**
 * A zlib stream of about 1 MB that inflates to 1 GiB of zeros (deflate's best ratio is about
 * 1:1030). Made once by streaming zeros through a deflater (about 2 s, a few MB of memory) and
 * kept in the temp folder for the next runs.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDeflate } from 'node:zlib';

export const BOMB_INFLATED_BYTES = 1024 * 1024 * 1024;

export async function zlibBomb(): Promise<Buffer> {
  const file = path.join(tmpdir(), `sello-fuzz-zlib-bomb-${BOMB_INFLATED_BYTES}.bin`);
  if (existsSync(file)) return readFileSync(file);
  const deflater = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    deflater.on('end', resolve);
    deflater.on('error', reject);
  });
  const zeros = Buffer.alloc(16 * 1024 * 1024);
  for (let written = 0; written < BOMB_INFLATED_BYTES; written += zeros.length) {
    if (!deflater.write(zeros)) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await ended;
  const bomb = Buffer.concat(out);
  // Written aside and renamed, so that a concurrent run never reads half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, bomb);
  renameSync(partial, file);
  return bomb;
}
