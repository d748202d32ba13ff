import { describe, expect, it } from 'vitest';
import { PdfSyntaxError, parseIndirectObject, parseObject } from '../../../core/pdf/syntax/object-parser.js';
import type { PdfDict, PdfStream, PdfString } from '../../../core/pdf/syntax/pdf-objects.js';
import { PdfName, PdfRef } from '../../../core/pdf/syntax/pdf-objects.js';

const parse = (s: string) => parseObject(Buffer.from(s, 'latin1'), 0).value;

describe('parseObject', () => {
  it('reads numbers, booleans and null (§7.3.2–7.3.3)', () => {
    expect(parse('42')).toBe(42);
    expect(parse('-3.5')).toBe(-3.5);
    expect(parse('.25')).toBe(0.25);
    expect(parse('+7')).toBe(7);
    expect(parse('true')).toBe(true);
    expect(parse('null')).toBe(null);
  });

  it('decodes #xx escapes in names (§7.3.5)', () => {
    expect(parse('/A#20B#23')).toEqual(new PdfName('A B#'));
    expect((parse('/Adobe.PPKLite') as PdfName).name).toBe('Adobe.PPKLite');
  });

  it('reads literal strings: nesting, escapes, octal, line continuation, CR→LF (§7.3.4.2)', () => {
    const s = parse('(a(b)c\\)\\n\\101\\0531\\\nd\r\ne)') as PdfString;
    expect(s.bytes.toString('latin1')).toBe('a(b)c)\nA+1d\ne');
    expect(s.hex).toBe(false);
  });

  it('reads hex strings with white-space and an odd final digit (§7.3.4.3)', () => {
    const s = parse('<48 65\n6C6C6F7>') as PdfString;
    expect(s.bytes).toEqual(Buffer.from('Hello\x70', 'latin1'));
    expect(s.hex).toBe(true);
  });

  it('reads arrays, dictionaries and references split over lines, skipping comments', () => {
    const d = parse('<< /Kids [1 0 R %comment\n 2\n0\nR 3] /Type /Pages /Gone null >>') as PdfDict;
    expect(d.get('Kids')).toEqual([new PdfRef(1, 0), new PdfRef(2, 0), 3]);
    expect(d.name('Type')).toBe('Pages');
    expect(d.has('Gone')).toBe(false); // §7.3.7: null value = absent
  });

  it('throws PdfSyntaxError on garbage', () => {
    expect(() => parse(')')).toThrow(PdfSyntaxError);
    expect(() => parse('<< /A 1')).toThrow(PdfSyntaxError);
  });
});

describe('parseIndirectObject', () => {
  it('accepts line breaks inside the "N G obj" header', () => {
    const o = parseIndirectObject(Buffer.from('12\n0\nobj\n<< /A 1 >>\nendobj'), 0);
    expect([o.num, o.gen]).toEqual([12, 0]);
    expect((o.value as PdfDict).get('A')).toBe(1);
  });

  it('reads a stream whose /Length is indirect', () => {
    const buf = Buffer.from('5 0 obj << /Length 9 0 R >>\nstream\r\nABCDEF\nendstream endobj');
    const o = parseIndirectObject(buf, 0, (ref) => (ref.num === 9 ? 6 : undefined));
    expect((o.value as PdfStream).data.toString()).toBe('ABCDEF');
  });

  it('falls back to endstream when /Length is wrong', () => {
    const buf = Buffer.from('5 0 obj << /Length 100 >>\nstream\nABC\nendstream\nendobj');
    const o = parseIndirectObject(buf, 0);
    expect((o.value as PdfStream).data.toString()).toBe('ABC');
  });
});
