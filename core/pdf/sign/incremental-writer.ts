/**
 * Appending an incremental update (PDF 32000-1:2008 §7.5.6): the original bytes stay exactly
 * as they were (earlier signatures keep covering them) and the new or changed objects follow,
 * with a cross-reference section in the file's own style — a table (§7.5.4) after a table,
 * an xref stream (§7.5.8) after a stream. Hybrid files (§7.5.8.4) get a plain table: the new
 * objects are all uncompressed, and /Prev leads readers to the hybrid section with its /XRefStm.
 *
 * After a reconstructed (damaged) cross-reference, the update carries a complete section and no
 * /Prev, so readers never need the broken one again.
 */
import type { CrossReference, XrefEntry } from '../syntax/cross-reference.js';
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
  let size = Math.max(xref.size, ...[...written.keys()].map((n) => n + 1));

  const useStream = xref.reconstructed ? [...entries.values()].some((e) => e.kind === 'compressed') : xref.lastSection === 'stream';
  const trailer = new PdfDict();
  const sectionStart = fileLength + pos;
  const rel = (abs: number): number => abs - xref.headerOffset;

  if (useStream) {
    const xrefNum = size;
    size += 1;
    entries.set(xrefNum, { kind: 'offset', offset: sectionStart, gen: 0 });
    fillTrailer(trailer, xref, size);
    const { data, index, w } = encodeXrefStream(entries, xref, size, rel);
    trailer.set('Type', new PdfName('XRef'));
    trailer.set('W', w);
    trailer.set('Index', index);
    push(writeIndirect(xrefNum, 0, new PdfStream(trailer, data)));
  } else {
    fillTrailer(trailer, xref, size);
    let table = 'xref\n';
    for (const [first, nums] of runs(entries, xref.reconstructed, size)) {
      table += `${first} ${nums.length}\n`;
      for (const n of nums) {
        const e = entries.get(n);
        // §7.5.4: exactly 20 bytes per entry, EOL included.
        if (e?.kind === 'offset') table += `${String(rel(e.offset)).padStart(10, '0')} ${String(e.gen).padStart(5, '0')} n\r\n`;
        else table += n === 0 ? '0000000000 65535 f\r\n' : '0000000000 00001 f\r\n';
      }
    }
    table += `trailer\n${formatObject(trailer)}\n`;
    push(Buffer.from(table, 'latin1'));
  }
  push(Buffer.from(`startxref\n${rel(sectionStart)}\n%%EOF\n`, 'latin1'));
  return { bytes: Buffer.concat(parts), objectStarts };
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

/** Contiguous runs of object numbers (a complete table lists 0 … size-1). */
function runs(entries: Map<number, XrefEntry>, complete: boolean, size: number): Array<[number, number[]]> {
  const nums = complete ? Array.from({ length: size }, (_, i) => i) : [...entries.keys()].sort((a, b) => a - b);
  const out: Array<[number, number[]]> = [];
  for (const n of nums) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1].length === n) last[1].push(n);
    else out.push([n, [n]]);
  }
  return out;
}

/** Rows of /W [1 w 2] (§7.5.8.3 Table 18), uncompressed: the section is a few rows. */
function encodeXrefStream(entries: Map<number, XrefEntry>, xref: CrossReference, size: number, rel: (abs: number) => number): { data: Buffer; index: number[]; w: number[] } {
  let max = 0;
  for (const e of entries.values()) if (e.kind === 'offset') max = Math.max(max, rel(e.offset));
  const w1 = Math.max(4, Math.ceil(Math.log2(max + 1) / 8));
  const w = [1, w1, 2];
  const groups = runs(entries, xref.reconstructed, size);
  const rows: Buffer[] = [];
  const index: number[] = [];
  for (const [first, nums] of groups) {
    index.push(first, nums.length);
    for (const n of nums) {
      const row = Buffer.alloc(1 + w1 + 2);
      const e = entries.get(n);
      if (e?.kind === 'offset') {
        row[0] = 1;
        row.writeUIntBE(rel(e.offset), 1, w1);
        row.writeUInt16BE(e.gen, 1 + w1);
      } else if (e?.kind === 'compressed') {
        row[0] = 2;
        row.writeUIntBE(e.stream, 1, w1);
        row.writeUInt16BE(e.index, 1 + w1);
      } else {
        row[0] = 0;
        row.writeUInt16BE(n === 0 ? 65535 : 0, 1 + w1);
      }
      rows.push(row);
    }
  }
  return { data: Buffer.concat(rows), index, w };
}
