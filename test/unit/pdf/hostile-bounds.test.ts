/**
 * Issue 15, points 1 and "false success": every number a hostile file gives the reader is held
 * to ISO 32000's bounds and to the file's own size where it is read. Each file comes from
 * test/helpers/hostile-pdfs.ts; each test shows the clear outcome (a SelloError with its code and
 * a Spanish message, or a correct recovery) and that the input was not touched.
 */
import { describe, expect, it } from 'vitest';
import { inspectPdf, signPdf, verifyPdfSignatures } from '../../../core/pdf/index.js';
import { BrokenXrefError, readCrossReference } from '../../../core/pdf/syntax/cross-reference.js';
import { PdfDocument, withPdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { PdfString, type PdfDict } from '../../../core/pdf/syntax/pdf-objects.js';
import { reconstructCrossReference } from '../../../core/pdf/syntax/reconstruct.js';
import * as hostile from '../../helpers/hostile-pdfs.js';
import { refusal } from '../../helpers/hostile-pdfs.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';

const signer = testPdfSigner();

/** Signs `pdf`, checks the input is untouched and the output reads back with one intact signature. */
async function signsCleanly(pdf: Buffer): Promise<Buffer> {
  const copy = Buffer.from(pdf);
  const out = await signPdf(pdf, signer, { stamp: { page: 1, x: 20, y: 20, size: 's', signerName: 'Ana Pérez', qrText: 'https://sello.example/v/1' } });
  expect(pdf.equals(copy)).toBe(true);
  const reports = verifyPdfSignatures(out);
  expect(reports).toHaveLength(1);
  expect(reports[0]).toMatchObject({ intact: true, coversWholeFile: true });
  // The output is read through its own chain, every number within bounds.
  const xref = readCrossReference(out);
  expect(Number.isSafeInteger(xref.size) && xref.size <= 8_388_608).toBe(true);
  for (const n of xref.entries.keys()) expect(Number.isInteger(n) && n <= 8_388_607).toBe(true);
  return out;
}

describe('object numbers and generations (ISO 32000-1 Annex C)', () => {
  for (const num of [999_999_999, 8_388_608, 2 ** 31 + 1]) {
    it(`rebuilds a damaged file holding "${num} 0 obj" without that object, and signs it`, async () => {
      const pdf = hostile.hugeObjectNumber(num);
      const xref = reconstructCrossReference(pdf);
      expect(xref.entries.has(num)).toBe(false);
      expect(xref.size).toBe(4);
      const out = await signsCleanly(pdf);
      expect(readCrossReference(out).size).toBeLessThan(10);
    });
  }

  it('treats an xref table with a subsection beyond 8,388,607 as broken, and recovers the file', async () => {
    const pdf = hostile.hugeObjectNumberInTable();
    expect(() => readCrossReference(pdf)).toThrow(BrokenXrefError);
    await signsCleanly(pdf);
  });

  it('refuses a file that already uses object 8,388,607: no number is left for the signature', async () => {
    const pdf = hostile.maxObjectNumberUsed();
    expect(readCrossReference(pdf).size).toBe(8_388_608);
    const err = await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_too_complex');
    expect(err.message).toMatch(/límites de lectura/);
  });
});

describe('trailer /Size (§7.5.5)', () => {
  for (const size of [10.5, 1e12, 2 ** 31 - 1, 2 ** 53]) {
    it(`does not take /Size ${size} for the next object number: the trailer is broken, the file recovered`, async () => {
      const pdf = hostile.fractionalSize(size);
      expect(() => readCrossReference(pdf)).toThrow(BrokenXrefError);
      const out = await signsCleanly(pdf);
      const tail = out.subarray(pdf.length).toString('latin1');
      expect(tail).not.toMatch(/\d+\.\d+ 0 obj|\d{7,} 0 obj/);
      expect(readCrossReference(out).size).toBeLessThan(10);
    });
  }
});

describe('xref streams: /W and /Index (§7.5.8.2)', () => {
  it('treats /W [0 0 0] with a huge /Index as broken instead of looping over it, and recovers the file', async () => {
    const pdf = hostile.xrefStreamHugeIndex(1_000_000);
    expect(() => readCrossReference(pdf)).toThrow(/\/W inválido/);
    await signsCleanly(pdf);
  });

  it('keeps reading a well-formed xref stream with a PNG predictor', () => {
    const xref = readCrossReference(hostile.wellFormedPredictorXref());
    expect(xref.reconstructed).toBe(false);
    expect(xref.entries.get(3)?.kind).toBe('offset');
  });
});

describe('predictor parameters (§7.4.4.4 Table 8)', () => {
  it('refuses /Columns far beyond the data before allocating a row, and recovers the file', async () => {
    const pdf = hostile.hugeColumns(100_000_000);
    expect(() => readCrossReference(pdf)).toThrow(/\/Columns/);
    await signsCleanly(pdf);
  });

  it('turns a negative /Columns into a broken section (no RangeError), and recovers the file', async () => {
    const pdf = hostile.negativeColumns();
    expect(() => readCrossReference(pdf)).toThrow(BrokenXrefError);
    await signsCleanly(pdf);
  });
});

describe('inflation', () => {
  it('stops an object stream that inflates a thousand times its size: pdf_too_complex', async () => {
    const pdf = hostile.inflateBomb(100);
    const err = await refusal(pdf, inspectPdf, 'pdf_too_complex');
    expect(err.message).toMatch(/se expande más de lo permitido/);
    await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_too_complex');
  });
});

describe('strings', () => {
  it('reads a 4 MB literal string as a view of the file, not byte by byte, and signs', async () => {
    const pdf = hostile.hugeLiteralString(4);
    withPdfDocument(pdf, (doc) => {
      const junk = doc.catalog().dict.get('Junk');
      expect(junk).toBeInstanceOf(PdfString);
      const bytes = (junk as PdfString).bytes;
      expect(bytes.length).toBe(4 * 1024 * 1024);
      expect(bytes.buffer).toBe(pdf.buffer); // no copy
    });
    await signsCleanly(pdf);
  });

  it('decodes a 4 MB literal string with escapes into one Buffer', () => {
    const pdf = hostile.hugeLiteralString(4, true);
    withPdfDocument(pdf, (doc) => {
      const bytes = (doc.catalog().dict.get('Junk') as PdfString).bytes;
      // Each escaped run `\(\101\r\n` (8 bytes) reads as `(A\n` (3 bytes).
      const runs = Math.ceil((4 * 1024 * 1024 - 8) / 4096);
      expect(bytes.length).toBe(4 * 1024 * 1024 - runs * 5);
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('(A\naa');
    });
  });
});

describe('page tree /Count (§7.7.3.2)', () => {
  it('does not believe /Count 1e9 over one page: the pages are counted by walking the tree', async () => {
    const pdf = hostile.hugeCount();
    const info = inspectPdf(pdf);
    expect(info.pageCount).toBe(1);
    expect(info.pages).toHaveLength(1);
    const out = await signPdf(pdf, signer, { stamp: { page: 'last', x: 20, y: 20, size: 's', signerName: 'Ana', qrText: 'x' } });
    expect(verifyPdfSignatures(out)[0]?.intact).toBe(true);
  });
});

// A guard more than a regression test: the reader already fell back to `endstream` for these;
// it must keep doing so now that lengths are checked as integers within the file. qpdf and
// poppler recover such lengths too, by scanning for `endstream`.
describe('stream /Length (§7.3.8.2)', () => {
  for (const length of ['10.5', '99999999']) {
    it(`ignores /Length ${length} and ends the stream at its endstream`, async () => {
      const pdf = hostile.badStreamLength(length);
      const doc = new PdfDocument(pdf, readCrossReference(pdf));
      expect((doc.getObject(3) as PdfDict).name('Type')).toBe('Page');
      await signsCleanly(pdf);
    });
  }

  it('refuses an object stream whose /Length is negative: poppler reads nothing of it (the page would be lost to it)', async () => {
    const pdf = hostile.badStreamLength('-5');
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(() => doc.getObject(3)).toThrow(/\/Length negativo/);
    await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_damaged');
  });
});
