/**
 * Signing damaged and doubtful files as other readers read them (the findings of the fuzz
 * campaign of seed 20251124), judged by qpdf and poppler themselves: Sello's choice between two
 * definitions is qpdf's when it rebuilds the input's table (`qpdf --show-object`); each output's
 * signature is valid for pdfsig; and qpdf finds nothing wrong with what Sello wrote — the
 * warnings it has for the output are warnings it has for the input too.
 */
import { describe, expect, it } from 'vitest';
import { signPdf } from '../../../core/pdf/index.js';
import * as hostile from '../../helpers/hostile-pdfs.js';
import { testPdfSigner } from '../../helpers/pdf-signer.js';
import { pdfsig, qpdfCheck, qpdfShowObject } from '../../helpers/pdf-tools.js';

const signer = testPdfSigner();

/** qpdf's WARNING lines without the file name and offsets, for comparing input and output. */
function warnings(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('WARNING'))
    .filter((l) => !/file is damaged|xref not found|reconstruct|can't find startxref/.test(l))
    // Reached through the input's xref stream or through Sello's table, an object is named alike.
    .map((l) => l.replace(/^WARNING: \S+/, '').replace(/xref stream: /g, '').replace(/offset \d+/g, 'offset N'));
}

describe('damaged inputs, as qpdf and poppler read them', () => {
  it('chooses the definition of a doubly defined page that qpdf chooses when it rebuilds the table', async () => {
    for (const pdf of [hostile.directThenCompressedPage(), hostile.objectsAfterWrongLength()]) {
      const theirs = await qpdfShowObject(pdf, 3);
      expect(theirs).toMatch(/\/Type \/Page/);
      const out = await signPdf(pdf, signer, {});
      // The output is read through Sello's complete table: the page is qpdf's, plus /Annots.
      expect((await qpdfShowObject(out, 3)).replace(/ \/Annots \[ [^\]]* \]/, '')).toBe(theirs);
    }
  });

  const inputs: Array<[string, () => Buffer]> = [
    ['references to objects never defined', () => hostile.danglingReferences()],
    ['a reference at /Size in an intact file', () => hostile.danglingReferenceInChain()],
    ['an object stream whose number a later object took', () => hostile.objectStreamRedefined()],
    ['an object stream with /N 2,147,483,649', () => hostile.objectStreamHugeN('annotation', false)],
    ['an object stream Sello keeps', () => hostile.annotationInObjectStream()],
    ['an object stream whose /Length loops through another stream', () => hostile.objectStreamLengthCycle()],
    ['an xref stream row of an unknown type', () => hostile.strictXrefStream('unknown row type')],
    ['an xref stream without /Size', () => hostile.strictXrefStream('no /Size')],
    ['an xref stream with generation 2^53', () => hostile.strictXrefStream('huge generation')],
    ['an xref stream with a negative /Length', () => hostile.strictXrefStream('negative /Length')],
    ['a table whose trailer lacks /Size', () => hostile.strictClassicTable('no /Size')],
    ['a /Prev that is a name', () => hostile.strictClassicTable('/Prev not an integer')],
    ['a generation that is not the table’s', () => hostile.strictClassicTable('generation mismatch')],
    ['a page without /Type', () => hostile.untypedPage()],
  ];
  for (const [what, make] of inputs) {
    it(`signs a file with ${what}: pdfsig finds the signature valid, qpdf nothing new`, async () => {
      const pdf = make();
      const out = await signPdf(pdf, signer, {});
      const sig = await pdfsig(out);
      expect(sig.validity).toEqual(['Signature is Valid.']);
      expect(sig.lastCoversWholeDocument).toBe(true);
      const [input, output] = [await qpdfCheck(pdf), await qpdfCheck(out)];
      const inherited = new Set(warnings(input.output));
      expect(warnings(output.output).filter((w) => !inherited.has(w))).toEqual([]);
      expect(output.output).not.toMatch(/file is damaged|supposed object stream|object stream header/);
    });
  }
});
