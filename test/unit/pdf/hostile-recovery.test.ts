/**
 * Issue 15, point 2 and the "false success" and "stuck and raw" classes: recovering a damaged
 * cross-reference table in linear time, never hiding /Encrypt, never taking an object stream's
 * entry for another object, and cycles that end as a broken xref (then recovered) instead of a
 * stack overflow. Files from test/helpers/hostile-pdfs.ts.
 */
import { describe, expect, it } from 'vitest';
import { inspectPdf, signPdf, verifyPdfSignatures } from '../../../core/pdf/index.js';
import { BrokenXrefError, readCrossReference } from '../../../core/pdf/syntax/cross-reference.js';
import { ReadBudget } from '../../../core/pdf/syntax/limits.js';
import { PdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import { reconstructCrossReference } from '../../../core/pdf/syntax/reconstruct.js';
import * as hostile from '../../helpers/hostile-pdfs.js';
import { refusal } from '../../helpers/hostile-pdfs.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';

const signer = testPdfSigner();

async function signedAndIntact(pdf: Buffer): Promise<Buffer> {
  const copy = Buffer.from(pdf);
  const out = await signPdf(pdf, signer, {});
  expect(pdf.equals(copy)).toBe(true);
  expect(verifyPdfSignatures(out).map((r) => r.intact)).toEqual([true]);
  return out;
}

describe('linear-time recovery of a damaged table', () => {
  const inputs: Array<[string, (kb: number) => Buffer]> = [
    ['`1 0 obj (` repeated (strings that never close)', hostile.quadraticRecovery],
    ['streams without endstream', hostile.unterminatedStreams],
    ['`trailer (` and /Catalog repeated', hostile.repeatedRecoveryKeywords],
  ];
  for (const [what, make] of inputs) {
    it(`rejects 256 KiB and 4 MiB of ${what} as damaged, with work linear in the size`, async () => {
      const spent: number[] = [];
      for (const kb of [256, 4096]) {
        const pdf = make(kb);
        await refusal(pdf, inspectPdf, 'pdf_damaged');
        const budget = new ReadBudget(pdf.length);
        // No catalog, or (found first) an object that runs to the end of the file.
        expect(() => reconstructCrossReference(pdf, budget)).toThrow(/no se encontró su catálogo|truncado/);
        // A couple of work units per byte at most, whatever the size: no step repeats over the file.
        expect(budget.spent).toBeLessThan(2 * pdf.length);
        spent.push(budget.spent / pdf.length);
      }
      expect(spent[1]!).toBeLessThan(spent[0]! * 1.5);
    });
  }

  it('still recovers a damaged file the ordinary way (startxref pointing nowhere)', async () => {
    const pdf = hostile.hugeObjectNumber(5);
    const xref = reconstructCrossReference(pdf);
    expect([...xref.entries.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 5]);
    expect(xref.trailer.has('Root')).toBe(true);
    await signedAndIntact(pdf);
  });

  it('takes `N G obj` inside a stream’s data for data, not for an object', () => {
    const fake = '1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj';
    const pdf = Buffer.from(
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
        `3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj\n4 0 obj << /Length 5 0 R >> stream\n${fake}\nendstream endobj\n` +
        `5 0 obj ${fake.length} endobj\ntrailer << /Root 1 0 R >>\nstartxref\n0\n%%EOF\n`,
      'latin1',
    );
    const xref = reconstructCrossReference(pdf);
    expect(xref.entries.get(1)).toEqual({ kind: 'offset', offset: 9, gen: 0 });
    expect(inspectPdf(pdf).pageCount).toBe(1);
  });
});

describe('a damaged trailer never hides /Encrypt', () => {
  it('carries /Encrypt from a trailer that lost its /Root: the file is refused as encrypted', async () => {
    const pdf = hostile.damagedTrailerHidingEncrypt();
    expect(reconstructCrossReference(pdf).trailer.has('Encrypt')).toBe(true);
    expect(inspectPdf(pdf).encryption).not.toBe('none');
    const err = await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_encrypted');
    expect(err.message).toMatch(/contraseña/);
  });

  it('takes a standard encryption dictionary no trailer names as the file’s /Encrypt', async () => {
    const pdf = hostile.unnamedEncryptionDictionary();
    expect(inspectPdf(pdf).encryption).not.toBe('none');
    await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_encrypted');
  });
});

describe('object streams (§7.5.7)', () => {
  it('refuses an xref entry that the object stream’s header contradicts, and recovers from the header', async () => {
    const pdf = hostile.objStmHeaderMismatch();
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(() => doc.getObject(3)).toThrow(BrokenXrefError);
    // Rebuilt from the stream's own header: object 3 is the 300×400 page, not object 9.
    expect(inspectPdf(pdf).pages[0]?.cropBox).toEqual([0, 0, 300, 400]);
    const out = await signedAndIntact(pdf);
    expect(inspectPdf(out).pages[0]?.cropBox).toEqual([0, 0, 300, 400]);
  });

  it('writes a compressed index above 65,535 after reconstruction (no Buffer RangeError)', async () => {
    const pdf = hostile.wideObjectStreamIndex();
    expect(reconstructCrossReference(pdf).entries.get(3)).toEqual({ kind: 'compressed', stream: 4, index: 70_000 });
    const out = await signedAndIntact(pdf);
    // The page was rewritten by the update; its neighbour 70,099 is still at index 69,999 of stream 4.
    expect(readCrossReference(out).entries.get(70_099)).toEqual({ kind: 'compressed', stream: 4, index: 69_999 });
  });
});

describe('cycles end as a broken xref, never as a stack overflow', () => {
  it('refuses an object stream whose /Length refers to a stream whose /Length refers back', async () => {
    // Whether qpdf and poppler get through such a loop depends on which of the two objects they
    // happen to resolve first (the fuzz campaign saw qpdf drop the object stream): the page it
    // holds is no ground to sign on. Read through the chain, rebuilt, then refused.
    const pdf = hostile.lengthCycle();
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(() => doc.getObject(3)).toThrow(BrokenXrefError);
    await refusal(pdf, (p) => signPdf(p, signer, {}), 'pdf_damaged');
  });

  it('refuses an object stream listed inside itself, then recovers from the object stream’s header', async () => {
    const pdf = hostile.objStmListingItself();
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(() => doc.getObject(3)).toThrow(/se necesita a sí mismo/);
    expect(inspectPdf(pdf).pageCount).toBe(1);
    await signedAndIntact(pdf);
  });

  it('refuses two object streams listed inside each other, then recovers', async () => {
    const pdf = hostile.objStmListingItself(true);
    const doc = new PdfDocument(pdf, readCrossReference(pdf));
    expect(() => doc.getObject(3)).toThrow(BrokenXrefError);
    await signedAndIntact(pdf);
  });
});
