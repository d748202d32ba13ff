/**
 * Signing on top of a damaged or doubtful file without changing what other readers read (the
 * findings of the fuzz campaign of seed 20251124). After a reconstruction Sello writes a complete
 * cross-reference section that every reader then takes as the whole truth; through an intact
 * chain it appends a section whose /Prev other readers follow. So: new objects never take a
 * number the file refers to; a compressed entry only ever names an object stream readers can
 * use; of two definitions, the one other readers take; and a chain is appended to only if qpdf
 * and poppler read it too. Files from test/helpers/hostile-pdfs.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { buildPadesCms, completeSignature, estimateCmsSize, inspectPdf, preparePdfSignature, signPdf, verifyPdfSignatures, type PreparedUpdate } from '../../../core/pdf/index.js';
import { readCrossReference } from '../../../core/pdf/syntax/cross-reference.js';
import { parseIndirectObject } from '../../../core/pdf/syntax/object-parser.js';
import { PdfDocument, withPdfDocument } from '../../../core/pdf/syntax/pdf-document.js';
import type { PdfDict, PdfStream } from '../../../core/pdf/syntax/pdf-objects.js';
import { reconstructCrossReference } from '../../../core/pdf/syntax/reconstruct.js';
import * as hostile from '../../helpers/hostile-pdfs.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';

const signer = testPdfSigner();

async function signed(pdf: Buffer): Promise<Buffer> {
  const out = await signPdf(pdf, signer, {});
  expect(verifyPdfSignatures(out).at(-1)).toMatchObject({ intact: true, coversWholeFile: true });
  return out;
}

async function refusal(pdf: Buffer): Promise<SelloError> {
  try {
    await signPdf(pdf, signer, {});
  } catch (err) {
    expect(err).toBeInstanceOf(SelloError);
    return err as SelloError;
  }
  throw new Error('se esperaba que Sello se negara a firmar');
}

/** The object numbers the update appended to `pdf` defines. */
function definedByUpdate(pdf: Buffer, out: Buffer): number[] {
  return [...out.subarray(pdf.length).toString('latin1').matchAll(/(?:^|\n)(\d+) \d+ obj\b/g)].map((m) => Number(m[1]));
}

/** `out` read through its own chain only, as a reader that never rebuilds. */
function chainOf(out: Buffer): PdfDocument {
  return new PdfDocument(out, readCrossReference(out));
}

describe('new objects never take a number the file refers to (§7.3.10)', () => {
  it('after a reconstruction, numbers them above every `N G R` in the file', async () => {
    const pdf = hostile.danglingReferences();
    // Highest header 4; the page refers to 5, its content stream's /Length to 6.
    expect(reconstructCrossReference(pdf).size).toBe(7);
    const out = await signed(pdf);
    expect(definedByUpdate(pdf, out).every((n) => n >= 7 || n === 1 || n === 3)).toBe(true);
    const doc = chainOf(out);
    expect([doc.getObject(5), doc.getObject(6)]).toEqual([null, null]);
  });

  it('through an intact chain, numbers them above what the objects it rewrites refer to', async () => {
    const pdf = hostile.danglingReferenceInChain();
    expect(readCrossReference(pdf).size).toBe(4);
    const out = await signed(pdf);
    expect(definedByUpdate(pdf, out)).not.toContain(4);
    // The page Sello rewrote (to add /Annots) still has /Contents 4 0 R, still null.
    expect(chainOf(out).getObject(4)).toBeNull();
  });

  it('refuses with pdf_too_complex when a reference already takes the last number ISO allows', async () => {
    const err = await refusal(hostile.danglingReferences(8_388_607));
    expect(err.code).toBe('pdf_too_complex');
  });
});

describe('a complete table names as object streams only object streams every reader can use (§7.5.7)', () => {
  it('drops the objects of an object stream whose number a later definition took', async () => {
    const pdf = hostile.objectStreamRedefined();
    const xref = reconstructCrossReference(pdf);
    expect(xref.entries.get(5)).toBeUndefined();
    expect(xref.entries.get(4)?.kind).toBe('offset');
    const out = await signed(pdf);
    expect([...readCrossReference(out).entries.values()].some((e) => e.kind === 'compressed')).toBe(false);
  });

  for (const n of [2_147_483_649, 2]) {
    it(`drops an object stream whose /N (${n}) claims more pairs than its header holds`, async () => {
      const pdf = hostile.objectStreamHugeN('annotation', false, n);
      expect(reconstructCrossReference(pdf).entries.get(5)).toBeUndefined();
      await signed(pdf);
    });

    it(`does not read through an intact chain what other readers cannot: the page in such a stream (/N ${n})`, async () => {
      const pdf = hostile.objectStreamHugeN('page', true, n);
      const doc = chainOf(pdf);
      expect(() => doc.getObject(3)).toThrow(/\/N/);
      expect((await refusal(pdf)).code).toBe('pdf_damaged');
    });
  }

  it('drops an object stream whose /Length other readers cannot resolve without a loop', async () => {
    const pdf = hostile.objectStreamLengthCycle();
    expect(reconstructCrossReference(pdf).entries.get(6)).toBeUndefined();
    const out = await signed(pdf);
    expect([...readCrossReference(out).entries.values()].some((e) => e.kind === 'compressed')).toBe(false);
  });

  it('keeps compressed entries that name a good object stream, and the read-back checks each one', async () => {
    const pdf = hostile.annotationInObjectStream();
    const out = await signed(pdf);
    expect(readCrossReference(out).entries.get(5)).toEqual({ kind: 'compressed', stream: 4, index: 0 });
    expect(chainOf(out).compressedEntryProblem(5)).toBeUndefined();
  });

  it('refuses, on reading back, a complete table whose compressed entry names a dictionary', async () => {
    const pdf = hostile.annotationInObjectStream();
    const prepared = preparePdfSignature(pdf, { signingTime: new Date(), contentsSize: estimateCmsSize(signer, { timestamp: false }) });
    const tampered = withCompressedEntry(pdf, prepared, 5, 1); // object 1 is the catalog
    const cms = await buildPadesCms({ digest: tampered.digest, signer });
    let caught: unknown;
    try {
      completeSignature(pdf, tampered, cms);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelloError);
    expect((caught as SelloError).code).toBe('pdf_output_unreadable');
    expect((caught as SelloError).message).toMatch(/tabla de referencias completa.*no es un object stream/);
  });
});

/**
 * `prepared` with the row of object `num` in its update's xref stream (uncompressed, /W [1 w1 w2])
 * made to name object stream `stream`, and the digest computed again over the changed bytes.
 */
function withCompressedEntry(pdf: Buffer, prepared: PreparedUpdate, num: number, stream: number): PreparedUpdate {
  const update = Buffer.from(prepared.update);
  const whole = Buffer.concat([pdf, update]);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(update.toString('latin1'))![1]);
  const section = parseIndirectObject(whole, startxref).value as PdfStream;
  const [, w1, w2] = section.dict.get('W') as number[];
  const index = section.dict.get('Index') as number[];
  let row = 0;
  for (let k = 0; k < index.length; k += 2) {
    if (num >= index[k]! && num < index[k]! + index[k + 1]!) {
      row += num - index[k]!;
      break;
    }
    row += index[k + 1]!;
  }
  const at = section.data.byteOffset - whole.byteOffset - pdf.length + row * (1 + w1! + w2!);
  expect(update[at]).toBe(2);
  update.writeUIntBE(stream, at + 1, w1!);
  const gapEnd = prepared.contentsAt + prepared.contentsSize * 2 + 2;
  const digest = createHash('sha256').update(pdf).update(update.subarray(0, prepared.contentsAt)).update(update.subarray(gapEnd)).digest();
  return { ...prepared, update, digest };
}

describe('of two definitions, the one other readers take', () => {
  it('takes an `N G obj` definition over one inside an object stream (qpdf never reads those when rebuilding)', async () => {
    const pdf = hostile.directThenCompressedPage();
    expect(reconstructCrossReference(pdf).entries.get(3)?.kind).toBe('offset');
    expect(inspectPdf(pdf).pages[0]?.cropBox).toEqual([0, 0, 300, 400]);
    const out = await signed(pdf);
    expect(inspectPdf(out).pages[0]?.cropBox).toEqual([0, 0, 300, 400]);
  });

  it('takes the later of two object streams, as a later update would', () => {
    const pdf = hostile.pageInTwoObjectStreams();
    expect(reconstructCrossReference(pdf).entries.get(3)).toEqual({ kind: 'compressed', stream: 5, index: 0 });
    expect(inspectPdf(pdf).pages[0]?.cropBox).toEqual([0, 0, 100, 100]);
  });

  it('ends a stream whose /Length is wrong at its `endobj`, so that the objects after it count', async () => {
    const pdf = hostile.objectsAfterWrongLength();
    expect(inspectPdf(pdf).pages[0]?.rotate).toBe(90);
    const out = await signed(pdf);
    expect(inspectPdf(out).pages[0]?.rotate).toBe(90);
  });
});

describe('a chain is appended to only if qpdf and poppler read it too', () => {
  const cases: Array<[string, () => Buffer]> = [
    ['an xref stream row of type 7 (§7.5.8.3 reads it as null; qpdf and poppler reject the section)', () => hostile.strictXrefStream('unknown row type')],
    ['an xref stream without /Size (Table 17)', () => hostile.strictXrefStream('no /Size')],
    ['an xref stream whose header has generation 2^53', () => hostile.strictXrefStream('huge generation')],
    ['an xref stream whose /Length is negative (poppler reads no rows)', () => hostile.strictXrefStream('negative /Length')],
    ['a table whose trailer lacks /Size', () => hostile.strictClassicTable('no /Size')],
    ['a /Prev that is a name', () => hostile.strictClassicTable('/Prev not an integer')],
    ['an object whose header has another generation than its entry', () => hostile.strictClassicTable('generation mismatch')],
  ];
  for (const [what, make] of cases) {
    it(`rebuilds, and writes a complete section, for ${what}`, async () => {
      const pdf = make();
      // Read as the signer reads it (the page, object 3, included): the chain is given up for a rebuilt table.
      expect(withPdfDocument(pdf, (doc) => (doc.getObject(3), doc.xref.reconstructed))).toBe(true);
      const out = await signed(pdf);
      const xref = readCrossReference(out);
      expect(xref.trailer.has('Prev')).toBe(false);
      expect(chainOf(out).catalog().dict.name('Type')).toBe('Catalog');
    });
  }

});

describe('the page Sello writes /Annots into is a page (§7.7.3.3)', () => {
  it('refuses a page tree whose leaf says it is something else, or is a stream', async () => {
    for (const kind of ['typed', 'stream'] as const) {
      const err = await refusal(hostile.pageTreeLeafNotAPage(kind));
      expect(err.code).toBe('pdf_damaged');
    }
  });

  it('signs a page that lacks /Type, and writes it with /Type /Page', async () => {
    const pdf = hostile.untypedPage();
    const out = await signed(pdf);
    expect((chainOf(out).getObject(3) as PdfDict).name('Type')).toBe('Page');
  });
});

describe('a file cut short inside an object is refused, not signed (fuzz seed 777, mutant 2701)', () => {
  for (const kind of ['stream', 'string'] as const) {
    it(`refuses a file that ends inside a ${kind}: an update would be read as its rest`, async () => {
      const pdf = hostile.truncatedInside(kind);
      const before = Buffer.from(pdf);
      const err = await refusal(pdf);
      expect(err.code).toBe('pdf_damaged');
      expect(err.message).toMatch(/truncado.*objeto (4|5)/);
      expect(pdf.equals(before)).toBe(true);
    });
  }
});

