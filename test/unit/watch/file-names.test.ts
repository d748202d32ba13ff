import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freeName, isDocumentName } from '../../../core/watch/index.js';
import { NAME_MAX_BYTES, printableName } from '../../../core/watch/file-names.js';

describe('isDocumentName', () => {
  it('accepts PDFs, whatever the case of the extension', () => {
    for (const name of ['factura.pdf', 'FACTURA.PDF', 'Factura 001-002.Pdf', 'año 2026 ñ.pdf', 'a.b.c.pdf']) expect(isDocumentName(name), name).toBe(true);
  });
  it('ignores names a writer uses while the file is not finished', () => {
    for (const name of ['factura.pdf.part', 'factura.pdf.tmp', 'factura.tmp', 'factura.pdf.crdownload', 'factura.pdf.download', 'factura.pdf.partial', 'FACTURA.PDF.PART', 'x.pdf.TMP']) {
      expect(isDocumentName(name), name).toBe(false);
    }
  });
  it('ignores Office lock files (~$*) and hidden files, including our own atomic-write temporaries', () => {
    for (const name of ['~$factura.pdf', '~factura.pdf', '.factura.pdf', '.factura.pdf.a1b2c3d4e5f6.tmp', '.sello-0123456789abcdef.tmp', '.DS_Store']) expect(isDocumentName(name), name).toBe(false);
  });
  it('ignores non-PDFs', () => {
    for (const name of ['notas.txt', 'factura.pdf.txt', 'factura.pdfx', 'factura', 'factura.xml', 'factura.pdf.error.txt', 'factura.pdf.nota.txt', 'pdf']) {
      expect(isDocumentName(name), name).toBe(false);
    }
  });
});

describe('freeName', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-free-name-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('keeps the name when it is free', async () => {
    expect(await freeName(dir(), 'factura.pdf')).toBe('factura.pdf');
  });
  it('adds -1, -2… before the extension on collision', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'factura.pdf'), 'x');
    expect(await freeName(d, 'factura.pdf')).toBe('factura-1.pdf');
    fs.writeFileSync(path.join(d, 'factura-1.pdf'), 'x');
    fs.writeFileSync(path.join(d, 'factura-2.pdf'), 'x');
    expect(await freeName(d, 'factura.pdf')).toBe('factura-3.pdf');
  });
  it('keeps only the last extension and handles names without one', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'acta.v2.pdf'), 'x');
    fs.writeFileSync(path.join(d, 'sin-extension'), 'x');
    expect(await freeName(d, 'acta.v2.pdf')).toBe('acta.v2-1.pdf');
    expect(await freeName(d, 'sin-extension')).toBe('sin-extension-1');
  });
  it('skips names reserved by another job but not written yet', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'factura.pdf'), 'x');
    const reserved = new Set([path.join(d, 'factura-1.pdf'), path.join(d, 'factura-2.pdf')]);
    expect(await freeName(d, 'factura.pdf', reserved)).toBe('factura-3.pdf');
    expect(await freeName(d, 'otra.pdf', new Set([path.join(d, 'otra.pdf')]))).toBe('otra-1.pdf');
  });
  it('treats a folder of that name as taken', async () => {
    const d = dir();
    fs.mkdirSync(path.join(d, 'factura.pdf'));
    expect(await freeName(d, 'factura.pdf')).toBe('factura-1.pdf');
  });
  it('treats a dangling symlink of that name as taken: it is never replaced', async () => {
    const d = dir();
    fs.symlinkSync(path.join(d, 'no-existe'), path.join(d, 'factura.pdf'));
    expect(await freeName(d, 'factura.pdf')).toBe('factura-1.pdf');
  });

  const bytes = (name: string) => Buffer.byteLength(name, 'utf8');

  it('shortens a long name so that `-N` fits in 255 bytes, keeping the extension and whole characters', async () => {
    const d = dir();
    const name = `${'ñ'.repeat(125)}.pdf`; // 254 bytes
    fs.writeFileSync(path.join(d, name), 'x');
    const next = await freeName(d, name);
    expect(bytes(next)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    expect(next).toBe(`${'ñ'.repeat(124)}-1.pdf`); // 248 + 6 bytes: one more ñ would not fit
    const emoji = `abc${'😀'.repeat(62)}.pdf`; // 255 bytes, 4 per emoji (2 UTF-16 units)
    fs.writeFileSync(path.join(d, emoji), 'x');
    const nextEmoji = await freeName(d, emoji);
    expect(nextEmoji).toBe(`abc${'😀'.repeat(61)}-1.pdf`); // 253 bytes: half an emoji is never kept
    expect(Buffer.from(nextEmoji, 'utf8').toString('utf8')).toBe(nextEmoji); // no lone surrogate (it would come back as U+FFFD)
  });

  it('keeps room for a companion file (`.error.txt`) and requires it to be free too', async () => {
    const d = dir();
    const name = `${'a'.repeat(251)}.pdf`; // 255 bytes
    const fitted = await freeName(d, name, new Set(), '.error.txt');
    expect(fitted).toBe(`${'a'.repeat(241)}.pdf`);
    expect(bytes(`${fitted}.error.txt`)).toBe(NAME_MAX_BYTES);
    // A stale explanation without its file: the name is taken, an explanation is never replaced.
    fs.writeFileSync(path.join(d, 'factura.pdf.error.txt'), 'antigua');
    expect(await freeName(d, 'factura.pdf', new Set(), '.error.txt')).toBe('factura-1.pdf');
    expect(await freeName(d, 'factura.pdf')).toBe('factura.pdf');
  });

  it('takes a very long extension for part of the name', async () => {
    const d = dir();
    const name = `acta.${'x'.repeat(250)}`;
    fs.writeFileSync(path.join(d, name), 'x');
    const next = await freeName(d, name);
    expect(next).toBe(`acta.${'x'.repeat(248)}-1`);
  });
});

describe('printableName', () => {
  it('keeps ordinary names, accents and emoji as they are', () => {
    for (const name of ['factura 001.pdf', 'año ñandú.pdf', 'contrato 😀.pdf', 'Ünïcødé – “citas”.pdf']) expect(printableName(name)).toBe(name);
  });
  it('shows control characters and text-direction marks as U+FFFD, so a name cannot write lines or reorder text', () => {
    expect(printableName('a.pdf\r\nPagado.pdf')).toBe('a.pdf\ufffd\ufffdPagado.pdf');
    expect(printableName('x\u202Efdp.exe')).toBe('x\ufffdfdp.exe');
    expect(printableName('\u0000\u001b[31m\u007f\u0085\u2028\u2066')).toBe('\ufffd\ufffd[31m\ufffd\ufffd\ufffd\ufffd');
  });
});
