/**
 * Appending an incremental update (PDF 32000-1:2008 §7.5.6): the original bytes stay exactly
 * as they were (earlier signatures keep covering them) and the new or changed objects follow,
 * with a cross-reference section in the file's own style — a table (§7.5.4) after a table,
 * an xref stream (§7.5.8) after a stream. Hybrid files (§7.5.8.4) get a plain table: the new
 * objects are all uncompressed, and /Prev leads readers to the hybrid section with its /XRefStm.
 *
 * After a reconstructed (damaged) cross-reference, the update carries a complete section and no
 * /Prev, so readers never need the broken one again. "Complete" lists every object found, in
 * runs of consecutive numbers: a number never defined needs no row (§7.3.10: a reference to it
 * is null), so the section follows the objects the file has, not its highest number.
 *
 * Nothing is written that a reader could not read back: object numbers beyond 8,388,607 (Annex
 * C), a /Size beyond 8,388,608 or an offset a table row can't hold are refused with
 * `pdf_too_complex` before a byte is produced, never written as `10.5 0 obj` or left to a
 * RangeError.
 */
import type { SelloError } from '../../errors/index.js';
import type { CrossReference, XrefEntry } from '../syntax/cross-reference.js';
import { PDF_LIMITS, isGeneration, isObjectNumber, tooComplex } from '../syntax/limits.js';
import { formatObject, writeIndirect } from '../syntax/object-writer.js';
import { PdfDict, PdfName, PdfStream, type PdfObject } from '../syntax/pdf-objects.js';

export interface UpdateObject {
  num: number;
  gen: number;
  /** A PDF object, or bytes already serialized as `N G obj … endobj` (the signature dictionary). */
  value: PdfObject | { raw: Buffer };
}

export interface IncrementalUpdate {
  /** The bytes to append to the original file. */
  bytes: Buffer;
  /** Where each object starts inside `bytes`. */
  objectStarts: Map<number, number>;
}

/**
 * Serializes `objects` and the closing xref section/trailer for a file of `fileLength` bytes.
 *
 * @example
 *   const update = buildIncrementalUpdate(xref, pdf.length, needsNewline, [{ num: 12, gen: 0, value: dict }]);
 *   const signed = Buffer.concat([pdf, update.bytes]);
 */
export function buildIncrementalUpdate(xref: CrossReference, fileLength: number, needsLeadingNewline: boolean, objects: UpdateObject[]): IncrementalUpdate {
  checkNumbers(xref, objects);
  const parts: Buffer[] = [];
  let pos = 0;
  const push = (b: Buffer): void => {
    parts.push(b);
    pos += b.length;
  };
  if (needsLeadingNewline) push(Buffer.from('\n'));
  const objectStarts = new Map<number, number>();
  const written = new Map<number, XrefEntry>();
  for (const o of objects) {
    objectStarts.set(o.num, pos);
    written.set(o.num, { kind: 'offset', offset: fileLength + pos, gen: o.gen });
    const value = o.value;
    push(isRaw(value) ? value.raw : writeIndirect(o.num, o.gen, value));
  }

  // A complete section after reconstruction; only the new objects otherwise.
  const entries = new Map<number, XrefEntry>(xref.reconstructed ? xref.entries : []);
  for (const [n, e] of written) entries.set(n, e);
  let size = xref.size;
  for (const n of written.keys()) size = Math.max(size, n + 1);

  const useStream = xref.reconstructed ? [...entries.values()].some((e) => e.kind === 'compressed') : xref.lastSection === 'stream';
  const trailer = new PdfDict();
  const sectionStart = fileLength + pos;
  const rel = (abs: number): number => abs - xref.headerOffset;

  if (useStream) {
    const xrefNum = size;
    size += 1;
    if (size > PDF_LIMITS.maxSize) throw noRoom();
    entries.set(xrefNum, { kind: 'offset', offset: sectionStart, gen: 0 });
    fillTrailer(trailer, xref, size);
    const { data, index, w } = encodeXrefStream(entries, xref, rel);
    trailer.set('Type', new PdfName('XRef'));
    trailer.set('W', w);
    trailer.set('Index', index);
    push(writeIndirect(xrefNum, 0, new PdfStream(trailer, data)));
  } else {
    fillTrailer(trailer, xref, size);
    let table = 'xref\n';
    for (const [first, nums] of runs(entries, xref.reconstructed)) {
      table += `${first} ${nums.length}\n`;
      for (const n of nums) {
        const e = entries.get(n);
        // §7.5.4: exactly 20 bytes per entry, EOL included.
        if (e?.kind === 'offset') table += `${tenDigits(rel(e.offset))} ${String(e.gen).padStart(5, '0')} n\r\n`;
        else table += n === 0 ? '0000000000 65535 f\r\n' : '0000000000 00001 f\r\n';
      }
    }
    table += `trailer\n${formatObject(trailer)}\n`;
    push(Buffer.from(table, 'latin1'));
  }
  push(Buffer.from(`startxref\n${rel(sectionStart)}\n%%EOF\n`, 'latin1'));
  return { bytes: Buffer.concat(parts), objectStarts };
}

/** The numbers the update would write must be ones a reader accepts (Annex C). */
function checkNumbers(xref: CrossReference, objects: UpdateObject[]): void {
  if (!Number.isSafeInteger(xref.size) || xref.size < 1 || xref.size > PDF_LIMITS.maxSize) throw noRoom();
  for (const o of objects) {
    if (!isObjectNumber(o.num) || !isGeneration(o.gen)) throw noRoom();
  }
}

function noRoom(): SelloError {
  return tooComplex(`el PDF ya usa los números de objeto hasta el máximo que permite la norma (${PDF_LIMITS.maxObjectNumber}); no caben objetos nuevos`);
}

/** §7.5.4: a table row's offset has exactly ten digits. */
function tenDigits(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > 9_999_999_999) throw tooComplex('un desplazamiento no cabe en una tabla de referencias');
  return String(offset).padStart(10, '0');
}

function isRaw(v: UpdateObject['value']): v is { raw: Buffer } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'raw' in v && Buffer.isBuffer((v as { raw: unknown }).raw);
}

/** §7.5.5 / §7.5.8.2: /Size, /Root, /Info, /ID carried over; /Prev to the section before. */
function fillTrailer(trailer: PdfDict, xref: CrossReference, size: number): void {
  trailer.set('Size', size);
  for (const k of ['Root', 'Info', 'ID']) {
    const v = xref.trailer.get(k);
    if (v !== undefined) trailer.set(k, v);
  }
  if (!xref.reconstructed) trailer.set('Prev', xref.lastStartxref);
}

/**
 * Contiguous runs of the object numbers in `entries`; a complete section also lists object 0,
 * the head of the free list (§7.5.4). Sized by the entries, never by /Size.
 */
function runs(entries: Map<number, XrefEntry>, complete: boolean): Array<[number, number[]]> {
  const nums = [...entries.keys()];
  if (complete && !entries.has(0)) nums.push(0);
  nums.sort((a, b) => a - b);
  const out: Array<[number, number[]]> = [];
  for (const n of nums) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1].length === n) last[1].push(n);
    else out.push([n, [n]]);
  }
  return out;
}

/**
 * Rows of /W [1 w1 w2] (§7.5.8.3 Table 18), uncompressed: the section is a few rows, or after
 * reconstruction one per object found. The widths fit the largest value written (offsets and
 * object-stream numbers; generations and indexes within an object stream), so no value is ever
 * out of range for its field.
 */
function encodeXrefStream(entries: Map<number, XrefEntry>, xref: CrossReference, rel: (abs: number) => number): { data: Buffer; index: number[]; w: number[] } {
  let max2 = 0;
  let max3 = 65535;
  for (const e of entries.values()) {
    if (e.kind === 'offset') {
      const off = rel(e.offset);
      if (!Number.isSafeInteger(off) || off < 0) throw tooComplex('un desplazamiento no cabe en la sección de referencias');
      max2 = Math.max(max2, off);
      max3 = Math.max(max3, e.gen);
    } else if (e.kind === 'compressed') {
      max2 = Math.max(max2, e.stream);
      max3 = Math.max(max3, e.index);
    }
  }
  const w1 = Math.max(4, bytesFor(max2));
  const w2 = Math.max(2, bytesFor(max3));
  if (w1 > 6 || w2 > 6) throw tooComplex('un valor no cabe en la sección de referencias');
  const rowLen = 1 + w1 + w2;
  const groups = runs(entries, xref.reconstructed);
  let rows = 0;
  for (const [, nums] of groups) rows += nums.length;
  const data = Buffer.alloc(rows * rowLen);
  const index: number[] = [];
  let pos = 0;
  for (const [first, nums] of groups) {
    index.push(first, nums.length);
    for (const n of nums) {
      const e = entries.get(n);
      if (e?.kind === 'offset') {
        data[pos] = 1;
        data.writeUIntBE(rel(e.offset), pos + 1, w1);
        data.writeUIntBE(e.gen, pos + 1 + w1, w2);
      } else if (e?.kind === 'compressed') {
        data[pos] = 2;
        data.writeUIntBE(e.stream, pos + 1, w1);
        data.writeUIntBE(e.index, pos + 1 + w1, w2);
      } else {
        data[pos] = 0;
        data.writeUIntBE(n === 0 ? 65535 : 0, pos + 1 + w1, w2);
      }
      pos += rowLen;
    }
  }
  return { data, index, w: [1, w1, w2] };
}

/** Bytes needed to write the non-negative integer `v` (at least 1). */
function bytesFor(v: number): number {
  let n = 1;
  while (v >= 2 ** (8 * n)) n++;
  return n;
}
