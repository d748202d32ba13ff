import { describe, expect, it } from 'vitest';
import { EndstreamIndex } from '../../../core/pdf/syntax/keyword-index.js';
import { ReadBudget } from '../../../core/pdf/syntax/limits.js';
import { PdfSyntaxError, parseIndirectObject, parseObject, readInteger } from '../../../core/pdf/syntax/object-parser.js';
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

  it('reads a long run of hex digits in either case, and refuses one that is not a digit', () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => i & 0xff));
    const hex = bytes.toString('hex');
    expect((parse(`<${hex}>`) as PdfString).bytes).toEqual(bytes);
    expect((parse(`<${hex.toUpperCase()}>`) as PdfString).bytes).toEqual(bytes);
    expect(() => parse(`<${hex.slice(0, 100)}zz${hex.slice(102)}>`)).toThrow(/no hexadecimal/);
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
    const o = parseIndirectObject(buf, 0, { resolveLength: (ref) => (ref.num === 9 ? 6 : undefined) });
    expect((o.value as PdfStream).data.toString()).toBe('ABCDEF');
  });

  it('falls back to endstream when /Length is wrong', () => {
    const buf = Buffer.from('5 0 obj << /Length 100 >>\nstream\nABC\nendstream\nendobj');
    const o = parseIndirectObject(buf, 0);
    expect((o.value as PdfStream).data.toString()).toBe('ABC');
  });
});

describe('reading without per-byte arrays, within a budget', () => {
  it('returns a string without escapes as a view of the input, and copies one with escapes into one Buffer', () => {
    const plain = Buffer.from('(hola mundo)');
    const s = parseObject(plain, 0).value as PdfString;
    expect(s.bytes.toString()).toBe('hola mundo');
    expect(s.bytes.buffer).toBe(plain.buffer);
    const escaped = Buffer.from('(a\\\\b\\(c\r\nd\\\r\ne\\0\\777)');
    expect((parseObject(escaped, 0).value as PdfString).bytes).toEqual(Buffer.from([0x61, 0x5c, 0x62, 0x28, 0x63, 0x0a, 0x64, 0x65, 0x00, 0xff]));
  });

  it('decodes a long name with #xx escapes', () => {
    const raw = '/' + 'A#20'.repeat(10_000);
    expect((parseObject(Buffer.from(raw), 0).value as PdfName).name).toBe('A '.repeat(10_000));
  });

  it('reads integers digit by digit and refuses tokens that are not one', () => {
    expect(readInteger(Buffer.from('  0000123 '), 0)).toEqual({ value: 123, end: 9 });
    expect(readInteger(Buffer.from('12a'), 0)).toBeUndefined();
    expect(readInteger(Buffer.from('1.5'), 0)).toBeUndefined();
    expect(readInteger(Buffer.from('-3'), 0)).toBeUndefined();
  });

  it('charges the bytes parsed to the budget, and a failed parse the rest of the input', () => {
    const budget = new ReadBudget(100);
    const buf = Buffer.from('<< /A [1 2 3] /B (x) >> trailing');
    const r = parseObject(buf, 0, budget);
    expect(budget.spent).toBe(r.end);
    expect(() => parseObject(Buffer.from('(never closed'), 0, budget)).toThrow(PdfSyntaxError);
    expect(budget.spent).toBe(r.end + 13);
    // A parse that fails where it stands is charged up to there, not to the end of the input.
    expect(() => parseObject(Buffer.from('<< 5 >>' + ' '.repeat(1000)), 0, budget)).toThrow(/nombre como clave/);
    expect(budget.spent).toBe(r.end + 13 + 3);
  });

  it('ends streams with a wrong /Length at the next endstream found by the index', () => {
    const buf = Buffer.from('1 0 obj << /Length 99 >>\nstream\nAB\nendstream\nendobj 2 0 obj << >>\nstream\nCD\nendstream\nendobj');
    const index = new EndstreamIndex(buf);
    const one = parseIndirectObject(buf, 0, { endstreams: index });
    expect((one.value as PdfStream).data.toString()).toBe('AB');
    const two = parseIndirectObject(buf, one.end, { endstreams: index });
    expect((two.value as PdfStream).data.toString()).toBe('CD');
    // A view that ends before the indexed endstream: none is found.
    expect(() => parseIndirectObject(buf.subarray(0, 40), 0, { endstreams: index })).toThrow(/endstream/);
  });
});
