import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { readCrossReference, type CrossReference, type XrefEntry } from '../../../core/pdf/syntax/cross-reference.js';
import { buildIncrementalUpdate } from '../../../core/pdf/sign/incremental-writer.js';
import { PdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { PdfDict, PdfRef, name } from '../../../core/pdf/syntax/pdf-objects.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';

function update(xref: CrossReference, pdf: Buffer): Buffer {
  const u = buildIncrementalUpdate(xref, pdf.length, false, [
    { num: xref.size, gen: 0, value: new PdfDict([['Type', name('Annot')], ['P', new PdfRef(1, 0)]]) },
  ]);
  return Buffer.concat([pdf, u.bytes]);
}

describe('buildIncrementalUpdate', () => {
  it('appends a classic table of 20-byte entries with /Prev after a table', async () => {
    const pdf = await makePdf({ objectStreams: false });
    const xref = readCrossReference(pdf);
    const out = update(xref, pdf);
    const tail = out.subarray(pdf.length).toString('latin1');
    expect(tail).toMatch(new RegExp(`xref\\n${xref.size} 1\\n\\d{10} 00000 n\\r\\n`));
    expect(tail).toContain(`/Prev ${xref.lastStartxref}`);
    const again = readCrossReference(out);
    expect(again.lastSection).toBe('table');
    expect((new PdfDocument(out, again).getObject(xref.size) as PdfDict).name('Type')).toBe('Annot');
    expect(again.trailer.get('ID')).toEqual(xref.trailer.get('ID'));
  });

  it('appends an xref stream after an xref stream, listing itself', async () => {
    const pdf = await makePdf({ objectStreams: true });
    const xref = readCrossReference(pdf);
    const out = update(xref, pdf);
    const again = readCrossReference(out);
    expect(again.lastSection).toBe('stream');
    expect(again.size).toBe(xref.size + 2);
    expect(again.entries.get(xref.size + 1)?.kind).toBe('offset');
    expect((new PdfDocument(out, again).getObject(xref.size) as PdfDict).name('Type')).toBe('Annot');
  });

  it('writes a complete section without /Prev after a reconstructed table', async () => {
    const pdf = await makePdf({ objectStreams: false });
    const xref = { ...readCrossReference(pdf), reconstructed: true };
    const out = update(xref, pdf);
    const tail = out.subarray(pdf.length).toString('latin1');
    expect(tail).toContain(`xref\n0 ${xref.size + 1}\n0000000000 65535 f\r\n`);
    expect(tail).not.toContain('/Prev');
  });

  it('refuses to write an object numbered beyond 8,388,607 or a /Size beyond 8,388,608 (Annex C)', async () => {
    const pdf = await makePdf({ objectStreams: false });
    const xref = readCrossReference(pdf);
    const annot = new PdfDict([['Type', name('Annot')]]);
    for (const num of [8_388_608, 10.5, 2 ** 53]) {
      expect(() => buildIncrementalUpdate(xref, pdf.length, false, [{ num, gen: 0, value: annot }])).toThrow(SelloError);
    }
    expect(() => buildIncrementalUpdate({ ...xref, size: 8_388_609 }, pdf.length, false, [{ num: 5, gen: 0, value: annot }])).toThrow(/límites de lectura/);
    // An xref stream needs one more number: none is left after 8,388,607.
    const streamXref: CrossReference = { ...xref, lastSection: 'stream', size: 8_388_607 };
    expect(() => buildIncrementalUpdate(streamXref, pdf.length, false, [{ num: 8_388_607, gen: 0, value: annot }])).toThrow(SelloError);
  });

  it('sizes a complete section by the objects found, not by the highest number', async () => {
    const pdf = await makePdf({ objectStreams: false });
    const base = readCrossReference(pdf);
    const entries = new Map<number, XrefEntry>(base.entries);
    entries.set(5_000_000, { kind: 'offset', offset: 9, gen: 0 });
    const xref: CrossReference = { ...base, entries, reconstructed: true, size: 5_000_001 };
    const u = buildIncrementalUpdate(xref, pdf.length, false, [{ num: 5_000_001, gen: 0, value: new PdfDict([['Type', name('Annot')]]) }]);
    expect(u.bytes.length).toBeLessThan(5000);
    const tail = u.bytes.toString('latin1');
    expect(tail).toContain(`xref\n0 ${base.size}\n`);
    expect(tail).toContain('\n5000000 2\n');
    expect(tail).toContain('/Size 5000002');
  });

  it('widens the xref stream fields for an object-stream index above 65,535 (no Buffer RangeError)', async () => {
    const pdf = await makePdf({ objectStreams: true });
    const base = readCrossReference(pdf);
    const entries = new Map<number, XrefEntry>(base.entries);
    entries.set(base.size, { kind: 'compressed', stream: 3, index: 70_000 });
    const xref: CrossReference = { ...base, entries, reconstructed: true, size: base.size + 1 };
    const u = buildIncrementalUpdate(xref, pdf.length, false, [{ num: base.size + 1, gen: 0, value: new PdfDict([['Type', name('Annot')]]) }]);
    const out = Buffer.concat([pdf, u.bytes]);
    const again = readCrossReference(out);
    expect(again.trailer.get('W')).toEqual([1, 4, 3]);
    expect(again.entries.get(base.size)).toEqual({ kind: 'compressed', stream: 3, index: 70_000 });
  });
});
