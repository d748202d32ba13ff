/**
 * The reader's budget (core/pdf/syntax/limits.ts): work and inflated bytes for one parse, and
 * the checks of numbers read from a file.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SelloError } from '../../../core/errors/index.js';
import { PDF_LIMITS, ReadBudget, isGeneration, isObjectNumber, isPdfSize } from '../../../core/pdf/syntax/limits.js';
import { PdfDict, PdfStream, name } from '../../../core/pdf/syntax/pdf-objects.js';
import { decodeStream } from '../../../core/pdf/syntax/stream-filters.js';

function flate(data: Buffer): PdfStream {
  return new PdfStream(new PdfDict([['Filter', name('FlateDecode')]]), deflateSync(data));
}

describe('ReadBudget', () => {
  it('throws pdf_too_complex once the work for a file of this size is spent', () => {
    const budget = new ReadBudget(1000);
    budget.spend(budget.maxWork);
    expect(() => budget.spend()).toThrow(SelloError);
    expect(() => budget.spend()).toThrow(/límites de lectura/);
  });

  it('caps one stream by size, ratio and what is left of the document’s allowance', () => {
    const budget = new ReadBudget(1000);
    expect(budget.inflateCap(10)).toBe(PDF_LIMITS.inflateRatioFloor);
    expect(budget.inflateCap(100_000)).toBe(PDF_LIMITS.maxInflateRatio * 100_000);
    expect(budget.inflateCap(10_000_000)).toBe(PDF_LIMITS.maxInflatedStream);
    budget.inflate(PDF_LIMITS.maxInflatedDocument - 500);
    expect(budget.inflateCap(10_000_000)).toBe(500);
  });

  it('refuses to inflate past the document’s allowance, however the streams are split', () => {
    const budget = new ReadBudget(1000);
    budget.inflate(PDF_LIMITS.maxInflatedDocument - 100);
    expect(decodeStream(flate(Buffer.alloc(100)), budget)).toHaveLength(100);
    const err = (() => {
      try {
        decodeStream(flate(Buffer.alloc(10)), budget);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(SelloError);
    expect((err as SelloError).code).toBe('pdf_too_complex');
  });
});

describe('bounds of numbers read from a file', () => {
  it('object numbers 0 … 8,388,607 and generations 0 … 65,535 (Annex C)', () => {
    expect([0, 8_388_607].every(isObjectNumber)).toBe(true);
    expect([-1, 8_388_608, 1.5, 2 ** 53, Number.NaN].some(isObjectNumber)).toBe(false);
    expect([0, 65_535].every(isGeneration)).toBe(true);
    expect([65_536, -1, 0.5].some(isGeneration)).toBe(false);
  });

  it('/Size: a positive integer up to 8,388,608', () => {
    expect([1, 8_388_608].every(isPdfSize)).toBe(true);
    expect([0, 10.5, 1e12, 2 ** 31 - 1, 2 ** 53, '4'].some(isPdfSize)).toBe(false);
  });
});
