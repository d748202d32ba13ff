/**
 * Test PDFs generated with pdf-lib (a devDependency; it only writes whole files, which is all
 * a fixture needs). Each page gets a little text so renderers have something to show.
 */
import { randomBytes, randomFillSync } from 'node:crypto';
import * as fs from 'node:fs';
import { PDFDocument, PDFName, StandardFonts, degrees } from 'pdf-lib';

export interface FixturePage {
  size?: [number, number];
  rotate?: 0 | 90 | 180 | 270;
  /** [llx, lly, urx, ury] */
  cropBox?: [number, number, number, number];
}

export interface FixtureOptions {
  pages?: FixturePage[];
  /** Object streams + xref stream (pdf-lib's default) or a classic xref table. */
  objectStreams?: boolean;
}

export async function makePdf(opts: FixtureOptions = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = opts.pages ?? [{}];
  pages.forEach((p, i) => {
    const page = doc.addPage(p.size ?? [595, 842]);
    if (p.rotate) page.setRotation(degrees(p.rotate));
    if (p.cropBox) page.setCropBox(p.cropBox[0], p.cropBox[1], p.cropBox[2] - p.cropBox[0], p.cropBox[3] - p.cropBox[1]);
    page.drawText(`Página ${i + 1}`.normalize('NFD').replace(/[\u0300-\u036f]/g, ''), { x: 300, y: 400, size: 10, font });
  });
  return Buffer.from(await doc.save({ useObjectStreams: opts.objectStreams ?? true }));
}

/** A PDF with `pages` pages, padded with a stream of `padBytes` incompressible bytes. */
export async function makeLargePdf(pages: number, padBytes = 0): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]).drawText(`Pagina ${i + 1}`, { x: 50, y: 800, size: 12, font });
  if (padBytes > 0) {
    // Referenced from the catalog so the bytes are part of the document, not garbage.
    doc.catalog.set(PDFName.of('SelloPadding'), doc.context.register(doc.context.stream(randomBytes(padBytes))));
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/**
 * Writes a one-page PDF of about `padBytes` + 1 KB to `file` without holding it in memory: the
 * bulk is a random (incompressible) stream referenced from the catalog. For the 100 MB benchmark.
 */
export function writeLargePdfFile(file: string, padBytes: number): void {
  const { openSync, writeSync, closeSync } = fs;
  const fd = openSync(file, 'w');
  let pos = 0;
  const offsets: number[] = [];
  const w = (s: string | Buffer): void => {
    const b = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
    writeSync(fd, b);
    pos += b.length;
  };
  const content = 'BT /F1 24 Tf 72 720 Td (Documento grande) Tj ET';
  w('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  offsets[1] = pos;
  w('1 0 obj\n<< /Type /Catalog /Pages 2 0 R /SelloPadding 5 0 R >>\nendobj\n');
  offsets[2] = pos;
  w('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n');
  offsets[3] = pos;
  w('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>\nendobj\n');
  offsets[4] = pos;
  w(`4 0 obj\n<< /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`);
  offsets[5] = pos;
  w(`5 0 obj\n<< /Length ${padBytes} >>\nstream\n`);
  const chunk = Buffer.alloc(1 << 20);
  for (let left = padBytes; left > 0; left -= chunk.length) {
    randomFillSync(chunk);
    w(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
  w('\nendstream\nendobj\n');
  const xrefAt = pos;
  w('xref\n0 6\n0000000000 65535 f\r\n');
  for (let i = 1; i <= 5; i++) w(`${String(offsets[i]).padStart(10, '0')} 00000 n\r\n`);
  w(`trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  closeSync(fd);
}
