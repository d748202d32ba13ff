import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keptMode, readDroppedFile } from '../../../core/watch/dropped-file.js';
import { ATOMIC_TEMPORARY, writeFileAtomic } from '../../../core/signing/sign-file.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-dropped-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('readDroppedFile', () => {
  it('reads a regular file with one name, with its mode and time', async () => {
    const file = path.join(dir, 'f.pdf');
    fs.writeFileSync(file, '%PDF-1.7 x', { mode: 0o640 });
    fs.chmodSync(file, 0o640);
    const read = await readDroppedFile(file);
    expect(read).toMatchObject({ kind: 'file', mode: 0o640 });
    if (read.kind === 'file') expect(read.bytes.toString()).toBe('%PDF-1.7 x');
  });

  it('refuses a symlink, even to a regular file, without reading what it points to', async () => {
    const outside = path.join(dir, 'fuera.pdf');
    fs.writeFileSync(outside, '%PDF-1.7 secreto');
    fs.symlinkSync(outside, path.join(dir, 'enlace.pdf'));
    const read = await readDroppedFile(path.join(dir, 'enlace.pdf'));
    expect(read).toMatchObject({ kind: 'refused', failure: { code: 'symlink' } });
    expect(JSON.stringify(read)).not.toContain('secreto');
    // A dangling one too.
    fs.symlinkSync(path.join(dir, 'no-existe.pdf'), path.join(dir, 'roto.pdf'));
    expect(await readDroppedFile(path.join(dir, 'roto.pdf'))).toMatchObject({ kind: 'refused', failure: { code: 'symlink' } });
  });

  it('refuses a FIFO at once, never waiting for a writer', async () => {
    const fifo = path.join(dir, 'tuberia.pdf');
    execFileSync('mkfifo', [fifo]);
    expect(await readDroppedFile(fifo)).toMatchObject({ kind: 'refused', failure: { code: 'not_regular_file' } });
  });

  it('refuses a file with a second name (hard link)', async () => {
    const outside = path.join(dir, 'fuera.pdf');
    fs.writeFileSync(outside, '%PDF-1.7 secreto');
    fs.linkSync(outside, path.join(dir, 'duro.pdf'));
    const read = await readDroppedFile(path.join(dir, 'duro.pdf'));
    expect(read).toMatchObject({ kind: 'refused', failure: { code: 'hard_link' } });
    expect(JSON.stringify(read)).not.toContain('secreto');
  });

  it('says gone for a missing file or a folder', async () => {
    expect(await readDroppedFile(path.join(dir, 'nada.pdf'))).toEqual({ kind: 'gone' });
    fs.mkdirSync(path.join(dir, 'carpeta.pdf'));
    expect(await readDroppedFile(path.join(dir, 'carpeta.pdf'))).toEqual({ kind: 'gone' });
  });
});

describe('keptMode', () => {
  it('keeps read and write bits only', () => {
    expect(keptMode({ mode: 0o100755 })).toBe(0o644);
    expect(keptMode({ mode: 0o104600 })).toBe(0o600);
    expect(keptMode({ mode: 0o100444 })).toBe(0o444);
  });
});

describe('writeFileAtomic', () => {
  it('writes a file whose name is 255 bytes: the temporary name does not grow with it', async () => {
    const name = `${'é'.repeat(125)}x.pdf`; // 255 bytes
    expect(Buffer.byteLength(name)).toBe(255);
    await writeFileAtomic(path.join(dir, name), [Buffer.from('uno'), Buffer.from('dos')]);
    expect(fs.readFileSync(path.join(dir, name), 'utf8')).toBe('unodos');
    expect(fs.readdirSync(dir)).toEqual([name]);
  });

  it('gives the file exactly the mode asked for, whatever the umask', async () => {
    const previous = process.umask(0o077);
    try {
      await writeFileAtomic(path.join(dir, 'a.pdf'), [Buffer.from('x')], 0o644);
      await writeFileAtomic(path.join(dir, 'b.pdf'), [Buffer.from('x')], 0o440);
    } finally {
      process.umask(previous);
    }
    expect(fs.statSync(path.join(dir, 'a.pdf')).mode & 0o777).toBe(0o644);
    expect(fs.statSync(path.join(dir, 'b.pdf')).mode & 0o777).toBe(0o440);
  });

  it('uses a temporary name the watcher sweeps and folder watchers ignore', () => {
    expect(ATOMIC_TEMPORARY.test('.sello-0123456789abcdef.tmp')).toBe(true);
    expect(ATOMIC_TEMPORARY.test('.sello-0123456789abcdef.tmp.pdf')).toBe(false);
    expect(ATOMIC_TEMPORARY.test('sello-0123456789abcdef.tmp')).toBe(false);
  });
});
