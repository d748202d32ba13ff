import { describe, expect, it } from 'vitest';
import { readCrossReference, type CrossReference } from '../../../core/pdf/syntax/cross-reference.js';
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
});
