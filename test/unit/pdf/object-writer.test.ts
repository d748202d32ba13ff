/**
 * Writing objects back (core/pdf/syntax/object-writer.ts): whatever a file gave the reader is
 * written so that a reader can read it again.
 */
import { describe, expect, it } from 'vitest';
import { parseObject } from '../../../core/pdf/syntax/object-parser.js';
import { formatName, formatNumber, formatObject, formatString } from '../../../core/pdf/syntax/object-writer.js';
import { PdfDict, PdfString } from '../../../core/pdf/syntax/pdf-objects.js';

describe('formatNumber', () => {
  it('writes integers beyond 1e21 in full digits, never in exponent notation (§7.3.3)', () => {
    const big = parseObject(Buffer.from('1000000000000000000000000'), 0).value as number;
    expect(formatNumber(big)).toBe('999999999999999983222784');
    expect(formatNumber(-1e22)).toBe('-10000000000000000000000');
    expect(formatObject(new PdfDict([['Rect', [0, 1e21]]]))).toBe('<</Rect [0 1000000000000000000000]>>');
    expect(formatNumber(1.5e-7)).toBe('0');
  });
});

describe('formatString', () => {
  it('escapes parentheses, backslashes and CR, and reads back the same bytes', () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const written = formatString(new PdfString(bytes));
    expect((parseObject(Buffer.from(written, 'latin1'), 0).value as PdfString).bytes).toEqual(bytes);
  });

  it('writes a string of several MB in one pass', () => {
    const bytes = Buffer.alloc(8 * 1024 * 1024, 0x28);
    expect(formatString(new PdfString(bytes))).toHaveLength(2 * bytes.length + 2);
  });
});

describe('formatName', () => {
  it('writes plain names as they are and escapes the rest as #xx (§7.3.5)', () => {
    expect(formatName('Adobe.PPKLite')).toBe('/Adobe.PPKLite');
    expect(formatName('A B#(x)/é')).toBe('/A#20B#23#28x#29#2f#e9');
    expect(formatName('n'.repeat(4 * 1024 * 1024))).toHaveLength(4 * 1024 * 1024 + 1);
  });
});
