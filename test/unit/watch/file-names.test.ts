import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freeName, isDocumentName } from '../../../core/watch/index.js';

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
    for (const name of ['~$factura.pdf', '~factura.pdf', '.factura.pdf', '.factura.pdf.a1b2c3d4e5f6.tmp', '.DS_Store']) expect(isDocumentName(name), name).toBe(false);
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
});
