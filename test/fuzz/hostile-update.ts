/**
 * Appends a well-formed incremental update (PDF 32000-1:2008 §7.5.6) carrying hostile content,
 * so that the reader reaches it through the normal path: startxref → this section → /Prev → the
 * original. Used for what a byte edit in place cannot express: a compressed object inside a
 * zlib bomb, an xref stream with absurd /W, /Index or /Columns, a /Prev chain that loops, an
 * /Encrypt in the newest trailer.
 */
import type { TailInfo } from './pdf-text.js';

export interface NewObject {
  num: number;
  /** Everything between `N 0 obj` and `endobj`. */
  body: Buffer;
}

/** Xref stream fields the hostile variants override; the rest is computed. */
export interface XrefStreamShape {
  /** Replaces the /W array (the rows are still written as [1 4 2]). */
  w?: string;
  /** Replaces the /Index array. */
  index?: string;
  /** Extra dictionary entries, e.g. `/DecodeParms << /Columns 2000000000 /Predictor 12 >>`. */
  extra?: string;
  /** Replaces the stream data. */
  data?: Buffer;
  /** Replaces the /Prev value (a loop: the section's own offset). */
  prev?: number | 'self';
}

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

function eolFor(pdf: Buffer): string {
  const last = pdf[pdf.length - 1];
  return last === 0x0a || last === 0x0d ? '' : '\n';
}

function appendObjects(pdf: Buffer, objects: NewObject[]): { parts: Buffer[]; offsets: Map<number, number>; end: number } {
  const parts: Buffer[] = [pdf, ascii(eolFor(pdf))];
  let pos = pdf.length + parts[1]!.length;
  const offsets = new Map<number, number>();
  for (const o of objects) {
    offsets.set(o.num, pos);
    for (const b of [ascii(`${o.num} 0 obj\n`), o.body, ascii('\nendobj\n')]) {
      parts.push(b);
      pos += b.length;
    }
  }
  return { parts, offsets, end: pos };
}

/** Xref stream rows with /W [1 4 2]: type, field 2, field 3. */
function rows(entries: Array<[number, number, number]>): Buffer {
  const out = Buffer.alloc(entries.length * 7);
  entries.forEach(([type, f2, f3], i) => {
    out.writeUInt8(type, i * 7);
    out.writeUInt32BE(f2, i * 7 + 1);
    out.writeUInt16BE(f3, i * 7 + 5);
  });
  return out;
}

/**
 * `pdf` + `objects` + an xref stream (object number `tail.size + objects.length`) listing them,
 * with `compressed` entries (object number → [object stream, index]) as type 2 rows.
 */
export function appendXrefStreamUpdate(
  pdf: Buffer,
  tail: TailInfo,
  objects: NewObject[],
  compressed: Map<number, [number, number]> = new Map(),
  shape: XrefStreamShape = {},
): Buffer {
  const { parts, offsets, end } = appendObjects(pdf, objects);
  const xrefNum = Math.max(tail.size, ...objects.map((o) => o.num + 1));
  offsets.set(xrefNum, end);
  const entries = new Map<number, [number, number, number]>();
  for (const [num, at] of offsets) entries.set(num, [1, at, 0]);
  for (const [num, [stm, idx]] of compressed) entries.set(num, [2, stm, idx]);
  const nums = [...entries.keys()].sort((a, b) => a - b);
  const data = shape.data ?? rows(nums.map((n) => entries.get(n)!));
  const index = shape.index ?? `[${nums.map((n) => `${n} 1`).join(' ')}]`;
  const prev = shape.prev === 'self' ? end : (shape.prev ?? tail.startxref);
  const dict = `<< /Type /XRef /Size ${xrefNum + 1} /Root ${tail.root} /Prev ${prev} /W ${shape.w ?? '[1 4 2]'} /Index ${index} ${shape.extra ?? ''} /Length ${data.length} >>`;
  parts.push(ascii(`${xrefNum} 0 obj\n${dict}\nstream\n`), data, ascii(`\nendstream\nendobj\nstartxref\n${end}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** `pdf` + `objects` + a classic xref table and a trailer with `trailerExtra` entries. */
export function appendTableUpdate(pdf: Buffer, tail: TailInfo, objects: NewObject[], trailerExtra = '', prev: number | 'self' = tail.startxref): Buffer {
  const { parts, offsets, end } = appendObjects(pdf, objects);
  const lines = ['xref'];
  for (const [num, at] of [...offsets].sort((a, b) => a[0] - b[0])) lines.push(`${num} 1`, `${String(at).padStart(10, '0')} 00000 n\r`);
  if (offsets.size === 0) lines.push('0 0');
  const size = Math.max(tail.size, ...objects.map((o) => o.num + 1));
  const prevValue = prev === 'self' ? end : prev;
  lines.push('trailer', `<< /Size ${size} /Root ${tail.root} /Prev ${prevValue} ${trailerExtra} >>`, 'startxref', String(end), '%%EOF', '');
  parts.push(ascii(lines.join('\n')));
  return Buffer.concat(parts);
}
