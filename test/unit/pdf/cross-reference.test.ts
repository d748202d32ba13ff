import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { readCrossReference } from '../../../core/pdf/syntax/cross-reference.js';
import { reconstructCrossReference } from '../../../core/pdf/syntax/reconstruct.js';
import { PdfDocument, withPdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { findPage, pageCount } from '../../../core/pdf/syntax/page-tree.js';
import type { PdfDict } from '../../../core/pdf/syntax/pdf-objects.js';

/** Assembles a file from `[num, body]` objects, returning bytes and offsets. */
function assemble(header: string, objects: Array<[number, string | Buffer]>): { bytes: Buffer; offsets: Map<number, number> } {
  const parts: Buffer[] = [Buffer.from(header, 'latin1')];
  let pos = parts[0]!.length;
  const offsets = new Map<number, number>();
  for (const [num, body] of objects) {
    offsets.set(num, pos);
    const b = Buffer.concat([Buffer.from(`${num} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n')]);
    parts.push(b);
    pos += b.length;
  }
  return { bytes: Buffer.concat(parts), offsets };
}

const PAGE_OBJECTS: Array<[number, string]> = [
  [1, '<< /Type /Catalog /Pages 2 0 R >>'],
  [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 300] /Rotate 90 >>'],
  [3, '<< /Type /Page /Parent 2 0 R /CropBox [10 10 500 290] >>'],
];

function table(offsets: Map<number, number>, size: number, base = 0): string {
  let t = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let i = 1; i < size; i++) t += `${String((offsets.get(i) ?? 0) - base).padStart(10, '0')} 00000 n \n`;
  return t;
}

/** PNG "Up" predictor rows (§7.4.4.4) for /W [1 2 1]. */
function xrefStreamData(rows: number[][]): Buffer {
  const out: number[] = [];
  let prev = [0, 0, 0, 0];
  for (const r of rows) {
    const bytes = [r[0]!, (r[1]! >> 8) & 0xff, r[1]! & 0xff, r[2]!];
    out.push(2, ...bytes.map((b, i) => (b - prev[i]! + 256) & 0xff));
    prev = bytes;
  }
  return deflateSync(Buffer.from(out));
}

describe('readCrossReference', () => {
  it('reads a classic table and inherits MediaBox/Rotate down the page tree', () => {
    const { bytes, offsets } = assemble('%PDF-1.4\n', PAGE_OBJECTS);
    const pdf = Buffer.concat([bytes, Buffer.from(`${table(offsets, 4)}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${bytes.length}\n%%EOF\n`)]);
    const xref = readCrossReference(pdf);
    expect(xref.lastSection).toBe('table');
    expect(xref.entries.get(3)).toEqual({ kind: 'offset', offset: offsets.get(3), gen: 0 });
    const doc = new PdfDocument(pdf, xref);
    expect(pageCount(doc)).toBe(1);
    const page = findPage(doc, 'last');
    expect(page.rotate).toBe(90);
    expect(page.cropBox).toEqual([10, 10, 200, 290]); // clipped to the media box
  });

  it('reads an xref stream with a PNG predictor and objects inside an object stream', () => {
    const inner = '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 300] >> << /Type /Page /Parent 2 0 R >>';
    const head = `2 0 3 ${inner.indexOf('<< /Type /Page ')} `;
    const objstm = Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 2 /First ${head.length} /Filter /FlateDecode /Length ${deflateSync(head + inner).length} >>\nstream\n`), deflateSync(head + inner), Buffer.from('\nendstream')]);
    const { bytes, offsets } = assemble('%PDF-1.5\n', [
      [1, '<< /Type /Catalog /Pages 2 0 R >>'],
      [4, objstm],
    ]);
    const xrefAt = bytes.length;
    const data = xrefStreamData([
      [0, 0, 255],
      [1, offsets.get(1)!, 0],
      [2, 4, 0],
      [2, 4, 1],
      [1, offsets.get(4)!, 0],
      [1, xrefAt, 0],
    ]);
    const pdf = Buffer.concat([
      bytes,
      Buffer.from(`5 0 obj\n<< /Type /XRef /Size 6 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length ${data.length} >>\nstream\n`),
      data,
      Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`),
    ]);
    const xref = readCrossReference(pdf);
    expect(xref.lastSection).toBe('stream');
    expect(xref.entries.get(3)).toEqual({ kind: 'compressed', stream: 4, index: 1 });
    const doc = new PdfDocument(pdf, xref);
    expect(findPage(doc, 1).mediaBox).toEqual([0, 0, 200, 300]);
  });

  it('merges a hybrid section: /XRefStm entries complete the table (§7.5.8.4)', () => {
    const inner = '<< /Type /Page /Parent 2 0 R >>';
    const head = '3 0 ';
    const objstm = `<< /Type /ObjStm /N 1 /First ${head.length} /Length ${head.length + inner.length} >>\nstream\n${head}${inner}\nendstream`;
    const { bytes, offsets } = assemble('%PDF-1.5\n', [PAGE_OBJECTS[0]!, [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'], [4, objstm]]);
    const xsAt = bytes.length;
    // /W [1 2 1], /Index [3 1 5 1]: object 3 is in stream 4 at index 0; object 5 is this stream.
    const xs = Buffer.from([2, 0, 4, 0, 1, (xsAt >> 8) & 0xff, xsAt & 0xff, 0]);
    const withStream = Buffer.concat([bytes, Buffer.from(`5 0 obj\n<< /Type /XRef /Size 6 /W [1 2 1] /Index [3 1 5 1] /Length ${xs.length} >>\nstream\n`), xs, Buffer.from('\nendstream\nendobj\n')]);
    offsets.set(5, xsAt);
    let t = 'xref\n0 6\n0000000000 65535 f \n';
    for (const i of [1, 2]) t += `${String(offsets.get(i)).padStart(10, '0')} 00000 n \n`;
    t += '0000000000 00001 f \n'; // 3 is free in the table, found through /XRefStm
    t += `${String(offsets.get(4)).padStart(10, '0')} 00000 n \n${String(xsAt).padStart(10, '0')} 00000 n \n`;
    const pdf = Buffer.concat([withStream, Buffer.from(`${t}trailer\n<< /Size 6 /Root 1 0 R /XRefStm ${xsAt} >>\nstartxref\n${withStream.length}\n%%EOF\n`)]);
    const xref = readCrossReference(pdf);
    expect(xref.lastSection).toBe('table');
    expect(xref.entries.get(3)).toEqual({ kind: 'compressed', stream: 4, index: 0 });
    expect(findPage(new PdfDocument(pdf, xref), 1).dict.name('Type')).toBe('Page');
  });

  it('counts offsets from %PDF- when junk precedes the header', () => {
    const { bytes, offsets } = assemble('basura al inicio\n%PDF-1.4\n', PAGE_OBJECTS);
    const base = 'basura al inicio\n'.length;
    const pdf = Buffer.concat([bytes, Buffer.from(`${table(offsets, 4, base)}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${bytes.length - base}\n%%EOF\n`)]);
    const xref = readCrossReference(pdf);
    expect(xref.headerOffset).toBe(base);
    expect(pageCount(new PdfDocument(pdf, xref))).toBe(1);
  });

  it('follows /Prev through earlier revisions, newest entry winning', () => {
    const { bytes, offsets } = assemble('%PDF-1.4\n', PAGE_OBJECTS);
    const first = Buffer.concat([bytes, Buffer.from(`${table(offsets, 4)}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${bytes.length}\n%%EOF\n`)]);
    const updAt = first.length;
    const upd = '3 0 obj\n<< /Type /Page /Parent 2 0 R /Rotate 180 >>\nendobj\n';
    const secAt = updAt + upd.length;
    const pdf = Buffer.concat([first, Buffer.from(`${upd}xref\n3 1\n${String(updAt).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 4 /Root 1 0 R /Prev ${bytes.length} >>\nstartxref\n${secAt}\n%%EOF\n`)]);
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(findPage(doc, 1).rotate).toBe(180);
    expect((doc.getObject(1) as PdfDict).name('Type')).toBe('Catalog');
  });

  it('rebuilds the table by scanning when startxref is wrong, and reports it', () => {
    const { bytes, offsets } = assemble('%PDF-1.4\n', PAGE_OBJECTS);
    const pdf = Buffer.concat([bytes, Buffer.from(`${table(offsets, 4)}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n7\n%%EOF\n`)]);
    expect(withPdfDocument(pdf, (doc) => [doc.xref.reconstructed, pageCount(doc)])).toEqual([true, 1]);
    expect(reconstructCrossReference(pdf).entries.get(2)).toEqual({ kind: 'offset', offset: offsets.get(2), gen: 0 });
  });

  it('refuses a file whose last update lost its xref and trailer', () => {
    const { bytes, offsets } = assemble('%PDF-1.4\n', PAGE_OBJECTS);
    const first = Buffer.concat([bytes, Buffer.from(`${table(offsets, 4)}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${bytes.length}\n%%EOF\n`)]);
    const cut = Buffer.concat([first, Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n')]);
    expect(() => readCrossReference(cut)).toThrow(SelloError);
    expect(() => readCrossReference(cut)).toThrow(/truncado/);
  });
});
