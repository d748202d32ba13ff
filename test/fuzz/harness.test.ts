/**
 * The fuzz harness's own checks: that it sees what it claims to see (a crash, a hang, memory
 * outside V8's heap, a heap overflow, a raw error — each in the stage where it happened, and
 * the next mutant still runs), that a mutant is rebuilt from its seed and index alone, and
 * that the qpdf criterion accepts inherited damage but not damage of Sello's making.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { testPdfSigner } from '../helpers/pdf-signer.js';
import { canaryPdf } from './canaries.js';
import { FuzzChildProcess } from './fuzz-child-process.js';
import { makeMutant } from './mutate.js';
import { qpdfObjections, qpdfVerdictOf, type QpdfVerdict } from './qpdf-criterion.js';
import { loadSeeds } from './seeds.js';

const MB = 1024 * 1024;

// Replaying one mutant (FUZZ_ONLY) needs only the campaign.
describe.skipIf(Boolean(process.env.FUZZ_ONLY))('fuzz harness', () => {
  const signer = testPdfSigner();
  const child = new FuzzChildProcess({ type: 'init', keyPem: signer.keyPem, certPem: signer.certPem }, { deadlineMs: 10_000, maxRssBytes: 320 * MB, maxHeapMb: 256 }, { SELLO_FUZZ_CANARIES: '1' });
  afterAll(() => child.stop());

  it('sees crashes, hangs, runaway memory and raw errors, in the stage where they happen, and goes on', async () => {
    const seeds = await loadSeeds(signer, undefined);

    const crash = await child.run(1, canaryPdf('crash'));
    expect(crash).toMatchObject({ kind: 'crash', stage: 'inspect' });
    const hang = await child.run(2, canaryPdf('hang'));
    expect(hang).toMatchObject({ kind: 'hang', stage: 'inspect' });
    const memory = await child.run(3, canaryPdf('memory'));
    expect(memory).toMatchObject({ kind: 'memory', stage: 'inspect' });
    // V8's own limit (--max-old-space-size) aborts first, or the RSS watch kills first.
    const heap = await child.run(4, canaryPdf('heap'));
    expect(['crash', 'memory']).toContain(heap.kind);
    const raw = await child.run(5, canaryPdf('raw'));
    expect(raw.kind === 'done' && raw.result.outcomes[0]).toMatchObject({ stage: 'inspect', result: 'finding', error: expect.stringMatching(/^TypeError/) });

    const fine = await child.run(6, seeds[0]!.bytes);
    expect(fine.kind === 'done' && fine.result.outcomes.map((o) => o.result)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(fine.kind === 'done' && fine.result.output && fine.result.output.length).toBeGreaterThan(seeds[0]!.bytes.length);
    expect(child.starts).toBe(5);
  }, 120_000);

  it('rebuilds mutant #i from the campaign seed and i alone', async () => {
    const [a, b] = [await loadSeeds(signer, undefined), await loadSeeds(signer, undefined)];
    const bomb = Buffer.from('not a bomb');
    for (let i = 0; i < 60; i++) {
      const [x, y] = [makeMutant(7, i, a, bomb), makeMutant(7, i, b, bomb)];
      expect(y.details).toEqual(x.details);
      // Signed seeds differ in their signature bytes (a key per run), not in their layout.
      if (!x.seed.signed) expect(y.bytes.equals(x.bytes)).toBe(true);
      else expect(y.bytes.length).toBe(x.bytes.length);
    }
  }, 60_000);

  it('qpdf: inherited damage passes; structure, objects of the update and reading into it do not', () => {
    const verdict = (status: number, lines: string[], length: number) =>
      qpdfVerdictOf(status, 'checking f.pdf\nPDF Version: 1.7\n', lines.map((l) => (l.startsWith('ERROR') ? l : `WARNING: f.pdf ${l}`)).join('\n'), 'f.pdf', length);
    const damagedInput = verdict(3, ['(object 4 0, offset 100): expected endstream', '(object 5 0, offset 1000): expected endobj'], 1000);
    const unopened = { rank: 2, opened: false, problems: ['qpdf: f.pdf: unable to find trailer dictionary while recovering damaged file'] };
    const facts = { inputLength: 1000, updateObjects: new Set([9, 10, 11]), rewritten: new Set([9]), sameAsInput: new Set<number>() };
    const objections = (input: QpdfVerdict, lines: string[], status = 3, f = facts) => qpdfObjections(input, verdict(status, lines, 2000), f);

    expect(qpdfObjections(damagedInput, verdict(0, [], 2000), facts)).toEqual([]);
    // The same damage, the end of file named by its offset in each.
    expect(objections(damagedInput, ['(object 4 0, offset 100): expected endstream', '(object 5 0, offset 2000): expected endobj'])).toEqual([]);
    expect(objections(unopened, ['(object 4 0, offset 100): unknown token while reading object'])).toEqual([]);

    // An unterminated object of the original read on into the update: inherited when the input
    // had a problem with it too, or could not be opened at all; not when qpdf read it fine.
    expect(objections(damagedInput, ['(object 5 0, offset 1500): unknown token while reading object; treating as string'])).toEqual([]);
    expect(objections(unopened, ['(object 4 0, offset 1500): expected endobj'])).toEqual([]);
    expect(objections(damagedInput, ['(object 6 0, offset 1500): expected endobj'])[0]).toMatch(/read it without a problem in the input/);
    // A /Length past the original's end: fine while the recovered stream ends inside the original.
    const recovered = (length: number) => ['(object 7 0, offset 1500): expected endstream', '(object 7 0, offset 800): attempting to recover stream length', `(object 7 0, offset 800): recovered stream length: ${length}`];
    expect(objections(unopened, recovered(150))).toEqual([]);
    expect(objections(verdict(3, ['(object 8 0, offset 100): unknown token'], 1000), recovered(900))[0]).toMatch(/takes in bytes of the update/);
    // A stream whose data has no end in the original: recovered past it, as an unterminated object.
    expect(objections(unopened, recovered(900))).toEqual([]);

    // The original's page tree names as a page an object the update rewrote: as in the input.
    const notAPage = (n: number, type: string) => [`object ${n} 0 at offset 1500: operation for dictionary attempted on object of type ${type}: returning false for a key containment request`, `object ${n} 0 at offset 1500: /Type key should be /Page but is not; overriding`];
    const inputNaming = (n: number) => verdict(3, [`object ${n} 0: /Type key should be /Page but is not; overriding`], 1000);
    expect(objections(inputNaming(9), notAPage(9, 'array'))).toEqual([]);
    // Not for an object the update made (10), nor for one the input's page tree did not name.
    expect(objections(inputNaming(10), notAPage(10, 'dictionary'))[0]).toMatch(/object Sello wrote/);
    expect(objections(damagedInput, notAPage(9, 'array'))[0]).toMatch(/object Sello wrote/);

    expect(objections(unopened, ['(object 10 0, offset 1200): unknown token while reading object'])[0]).toMatch(/object Sello wrote/);
    expect(objections(damagedInput, ['(offset 1400): xref not found'])[0]).toMatch(/file structure/);
    expect(objections(damagedInput, ['(object 3 0, offset 500): supposed object stream 1 is not a stream'])[0]).toMatch(/file structure/);
    // The input's xref naming object 1 as an object stream, met from another object: inherited.
    const notAStream = verdict(3, ['(object 2 0, offset 400): supposed object stream 1 is not a stream'], 1000);
    expect(objections(notAStream, ['(object 3 0, offset 500): supposed object stream 1 is not a stream'])).toEqual([]);
    // Not for another stream number, nor for one the update writes.
    expect(objections(notAStream, ['(object 3 0, offset 500): supposed object stream 2 is not a stream'])[0]).toMatch(/file structure/);
    const writesOne = { ...facts, updateObjects: new Set([1, 9, 10]) };
    expect(objections(notAStream, ['(object 3 0, offset 500): supposed object stream 1 is not a stream'], 3, writesOne)[0]).toMatch(/file structure/);
    expect(objections(verdict(0, [], 1000), ['(object 4 0, offset 100): expected endstream'])[0]).toMatch(/warnings for the output, clean for the input/);

    // Errors for the output, warnings for the input: only about objects qpdf reads the same from both.
    const error = ['(offset 300): error decoding stream data for object 4 0: stream inflate: inflate: data: invalid literal/lengths set', 'ERROR: page 1: content stream (content stream object 4 0): errors while decoding content stream'];
    expect(objections(damagedInput, error, 2, { ...facts, sameAsInput: new Set([4]) })).toEqual([]);
    expect(objections(damagedInput, error, 2)[0]).toMatch(/errors for the output, warnings for the input/);

    // An output qpdf cannot open: only as the input fails, with the same message and nothing new.
    expect(qpdfObjections(damagedInput, { rank: 2, opened: false, problems: [] }, facts)[0]).toBe('qpdf cannot open the output');
    expect(qpdfObjections(unopened, { ...unopened }, facts)).toEqual([]);
    expect(qpdfObjections(unopened, { rank: 2, opened: false, problems: ['qpdf: f.pdf: unable to find /Root dictionary'] }, facts)[0]).toBe('qpdf cannot open the output');
    expect(qpdfObjections(unopened, { rank: 2, opened: false, problems: ['WARNING: f.pdf (object 10 0, offset 1200): expected endobj', ...unopened.problems] }, facts)[0]).toBe('qpdf cannot open the output');
  });
});
