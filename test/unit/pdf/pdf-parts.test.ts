/**
 * Issue 15, point 3: a file given as consecutive parts (an original and the update appended to
 * it) is read in place, each object parsed inside the part that holds it: reading back a signed
 * output never joins, and so never doubles, the file.
 */
import { describe, expect, it, vi } from 'vitest';
import { preparePdfSignature } from '../../../core/pdf/index.js';
import { readCrossReference } from '../../../core/pdf/syntax/cross-reference.js';
import { signatureFields } from '../../../core/pdf/syntax/form-fields.js';
import { findPage } from '../../../core/pdf/syntax/page-tree.js';
import { PdfDocument, withPdfParts } from '../../../core/pdf/syntax/pdf-document.js';
import { PdfStream, PdfString } from '../../../core/pdf/syntax/pdf-objects.js';
import { PdfSource } from '../../../core/pdf/syntax/pdf-source.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';

async function originalAndUpdate(objectStreams: boolean): Promise<[Buffer, Buffer]> {
  const pdf = await makePdf({ objectStreams, pages: [{}, { rotate: 90 }] });
  const prepared = preparePdfSignature(pdf, { signingTime: new Date(0), contentsSize: 64 });
  return [pdf, prepared.update];
}

describe('reading a file given as parts', () => {
  for (const objectStreams of [false, true]) {
    it(`reads original + update in place, as the joined file reads (${objectStreams ? 'xref streams' : 'tables'})`, async () => {
      const [a, b] = await originalAndUpdate(objectStreams);
      const joined = Buffer.concat([a, b]);
      const concat = vi.spyOn(Buffer, 'concat');
      try {
        const fromParts = readCrossReference(new PdfSource([a, b]));
        expect(fromParts.entries).toEqual(readCrossReference(joined).entries);
        withPdfParts([a, b], (doc) => {
          expect(doc.source.length).toBe(joined.length);
          // The new signature dictionary is in the update; its /Contents is a view of that part.
          const [field] = signatureFields(doc);
          const contents = field?.value?.get('Contents');
          expect(contents).toBeInstanceOf(PdfString);
          expect((contents as PdfString).bytes.buffer).toBe(b.buffer);
          // The page (now with /Annots) is in the update, the content stream in the original.
          const page = findPage(doc, 1);
          const contents0 = doc.resolve(page.dict.get('Contents'));
          const content = doc.resolve(Array.isArray(contents0) ? contents0[0] : contents0);
          expect(content).toBeInstanceOf(PdfStream);
          expect((content as PdfStream).data.buffer).toBe(a.buffer);
          expect(findPage(doc, 2).rotate).toBe(90);
        });
        // Nothing joined the parts (zlib may concatenate its own chunks; never ours).
        for (const [list] of concat.mock.calls) expect(list.includes(a)).toBe(false);
      } finally {
        concat.mockRestore();
      }
    });
  }

  it('finds offsets in the right part (an object right at the start of the update)', async () => {
    const [a, b] = await originalAndUpdate(false);
    const doc = new PdfDocument(new PdfSource([a, b]), readCrossReference(new PdfSource([a, b])));
    const first = Number(/^\n?(\d+) 0 obj/.exec(b.toString('latin1'))![1]);
    expect(doc.getObject(first)).not.toBeNull();
    expect(doc.source.partAt(a.length)?.base).toBe(a.length);
    expect(doc.source.partAt(a.length - 1)?.base).toBe(0);
    expect(doc.source.partAt(a.length + b.length)).toBeUndefined();
  });

  it('joins the parts only when a caller asks for one Buffer', async () => {
    const [a, b] = await originalAndUpdate(false);
    withPdfParts([a, b], (doc) => {
      expect(doc.bytes.equals(Buffer.concat([a, b]))).toBe(true);
    });
    const single = new PdfSource(a);
    expect(single.toBuffer()).toBe(a);
  });
});
