/**
 * Reading the cross-reference information (PDF 32000-1:2008 §7.5.4–§7.5.8, §7.5.6 incremental
 * updates, Annex F linearization): classic tables, xref streams with /W and /Index, hybrid files
 * (/XRefStm, §7.5.8.4), and /Prev chains over any number of revisions. Offsets in a file with
 * leading junk are counted from the `%PDF-` header, as Acrobat and qpdf do.
 *
 * When the chain is unusable (startxref or offsets wrong) `reconstructCrossReference` rebuilds
 * the table by scanning for `N G obj`, the way every reader recovers such files.
 */
import { SelloError } from '../../errors/index.js';
import { PdfSyntaxError, parseIndirectObject, parseObject, readInteger, readRegular, skipWhitespace } from './object-parser.js';
import { PdfDict, PdfName, PdfStream, type PdfObject } from './pdf-objects.js';
import { decodeStream } from './stream-filters.js';

export type XrefEntry =
  | { kind: 'free' }
  /** `offset` is absolute in the buffer (header offset already added). */
  | { kind: 'offset'; offset: number; gen: number }
  | { kind: 'compressed'; stream: number; index: number };

export interface CrossReference {
  /** Newest entry for each object number. */
  entries: Map<number, XrefEntry>;
  /** The newest trailer, with keys missing from it taken from older ones (linearized files). */
  trailer: PdfDict;
  /** Style of the newest section: the update must use the same (§7.5.8.4 hybrid files write a table). */
  lastSection: 'table' | 'stream';
  /** Offset of the newest section as written after `startxref` (relative to the header). */
  lastStartxref: number;
  /** Where `%PDF-` starts; offsets in the file are relative to it. */
  headerOffset: number;
  /** True when the table was rebuilt by scanning: the update must then carry a complete table. */
  reconstructed: boolean;
  /** One more than the highest object number in use (the trailer's /Size or more). */
  size: number;
}

/** The chain is unusable: the caller falls back to `reconstructCrossReference`. */
export class BrokenXrefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokenXrefError';
  }
}

/** Finds `%PDF-` in the first KiB (§7.5.2; junk before it is tolerated as Annex H does). */
export function findHeaderOffset(buf: Buffer): number {
  const at = buf.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1');
  if (at < 0) {
    throw new SelloError('pdf_invalid', { detail: 'El archivo no empieza como un PDF (falta la cabecera %PDF-). Verifique que subió el archivo correcto.' });
  }
  return at;
}

const OBJ_HEADER_RE = /(?<![0-9])(\d{1,10})[\s\0]+(\d{1,5})[\s\0]+obj(?![A-Za-z0-9])/g;

/**
 * Reads the cross-reference chain starting at the last `startxref` (§7.5.5).
 * Throws SelloError `pdf_damaged` for a truncated file, BrokenXrefError when the chain is broken.
 */
export function readCrossReference(buf: Buffer): CrossReference {
  const headerOffset = findHeaderOffset(buf);
  const sx = buf.lastIndexOf('startxref', buf.length, 'latin1');
  if (sx < 0) throw truncated();
  const sxNum = readInteger(buf, sx + 9);
  if (!sxNum) throw new BrokenXrefError('startxref sin número');
  // An interrupted incremental save leaves objects after the last %%EOF and no new trailer:
  // signing on top would silently drop that update (§7.5.6).
  const tail = buf.toString('latin1', sxNum.end, Math.min(buf.length, sxNum.end + 4096));
  OBJ_HEADER_RE.lastIndex = 0;
  if (OBJ_HEADER_RE.test(tail)) throw truncated();

  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  let lastSection: 'table' | 'stream' | undefined;
  const seen = new Set<number>();
  let next: number | undefined = sxNum.value;
  while (next !== undefined) {
    if (seen.has(next) || seen.size > 10_000) throw new BrokenXrefError('ciclo en /Prev');
    seen.add(next);
    const section = readSection(buf, next + headerOffset, headerOffset);
    lastSection ??= section.kind;
    for (const [num, e] of section.entries) if (!entries.has(num)) entries.set(num, e);
    if (!trailer) trailer = section.trailer.clone();
    else for (const [k, v] of section.trailer.map) if (!trailer.has(k) && k !== 'Prev' && k !== 'XRefStm') trailer.set(k, v);
    const prev = section.trailer.get('Prev');
    next = typeof prev === 'number' ? prev : undefined;
  }
  if (!trailer || !lastSection) throw new BrokenXrefError('sin trailer');
  if (!trailer.has('Root')) throw new BrokenXrefError('trailer sin /Root');
  return {
    entries,
    trailer,
    lastSection,
    lastStartxref: sxNum.value,
    headerOffset,
    reconstructed: false,
    size: sizeOf(trailer, entries),
  };
}

function truncated(): SelloError {
  return new SelloError('pdf_damaged', {
    detail: 'El PDF está incompleto (truncado): falta la tabla de referencias de su última modificación. Vuelva a guardarlo o exportarlo desde el programa original e inténtelo de nuevo.',
  });
}

function sizeOf(trailer: PdfDict, entries: Map<number, XrefEntry>): number {
  let size = typeof trailer.get('Size') === 'number' ? (trailer.get('Size') as number) : 0;
  for (const n of entries.keys()) if (n + 1 > size) size = n + 1;
  return size;
}

interface Section {
  kind: 'table' | 'stream';
  entries: Map<number, XrefEntry>;
  trailer: PdfDict;
}

function readSection(buf: Buffer, at: number, headerOffset: number): Section {
  if (at < 0 || at >= buf.length) throw new BrokenXrefError('startxref fuera del archivo');
  // Some writers point startxref at a comment or white-space before the section.
  const p = skipWhitespace(buf, at);
  const kw = readRegular(buf, p);
  try {
    if (kw.text === 'xref') return readTable(buf, kw.end, headerOffset);
    if (/^\d+$/.test(kw.text)) {
      const s = readStreamSection(buf, p, headerOffset);
      return { kind: 'stream', entries: s.entries, trailer: s.trailer };
    }
  } catch (err) {
    if (err instanceof PdfSyntaxError) throw new BrokenXrefError(err.message);
    throw err;
  }
  throw new BrokenXrefError(`no hay sección xref en ${at}`);
}

/** §7.5.4: subsections `start count`, then `count` entries `oooooooooo ggggg n|f`. */
function readTable(buf: Buffer, pos: number, headerOffset: number): Section {
  const entries = new Map<number, XrefEntry>();
  let p = pos;
  for (;;) {
    p = skipWhitespace(buf, p);
    const tok = readRegular(buf, p);
    if (tok.text === 'trailer') {
      const t = parseObject(buf, tok.end);
      if (!(t.value instanceof PdfDict)) throw new BrokenXrefError('trailer no es un diccionario');
      const trailer = t.value;
      // Hybrid file (§7.5.8.4): the stream's entries complete this section and win over its table.
      const xs = trailer.get('XRefStm');
      if (typeof xs === 'number') {
        const s = readStreamSection(buf, skipWhitespace(buf, xs + headerOffset), headerOffset);
        for (const [n, e] of s.entries) {
          const cur = entries.get(n);
          if (!cur || cur.kind === 'free' || e.kind !== 'free') entries.set(n, e);
        }
      }
      return { kind: 'table', entries, trailer };
    }
    const start = readInteger(buf, p);
    const count = start && readInteger(buf, start.end);
    if (!start || !count) throw new BrokenXrefError('subsección xref ilegible');
    p = count.end;
    for (let i = 0; i < count.value; i++) {
      const off = readInteger(buf, p);
      const gen = off && readInteger(buf, off.end);
      if (!off || !gen) throw new BrokenXrefError('entrada xref ilegible');
      const q = skipWhitespace(buf, gen.end);
      const type = buf[q];
      p = q + 1;
      const num = start.value + i;
      if (entries.has(num)) continue;
      if (type === 0x6e /* n */) entries.set(num, { kind: 'offset', offset: off.value + headerOffset, gen: gen.value });
      else if (type === 0x66 /* f */) entries.set(num, { kind: 'free' });
      else throw new BrokenXrefError('tipo de entrada xref desconocido');
    }
  }
}

/** §7.5.8: a stream object of /Type /XRef; its dictionary is the trailer. */
export function readStreamSection(buf: Buffer, at: number, headerOffset: number): { entries: Map<number, XrefEntry>; trailer: PdfDict } {
  const obj = parseIndirectObject(buf, at);
  if (!(obj.value instanceof PdfStream) || obj.value.dict.name('Type') !== 'XRef') throw new BrokenXrefError('no es un stream /XRef');
  return { entries: decodeXrefStream(obj.value, headerOffset), trailer: obj.value.dict };
}

/** §7.5.8.2–3: rows of /W field widths over the /Index ranges (default [0 /Size]). */
export function decodeXrefStream(stream: PdfStream, headerOffset: number): Map<number, XrefEntry> {
  const dict = stream.dict;
  const w = dict.get('W');
  if (!Array.isArray(w) || w.length < 3 || !w.every((x) => typeof x === 'number')) throw new BrokenXrefError('/W inválido');
  const [w0, w1, w2] = w as number[] as [number, number, number];
  const size = dict.get('Size');
  const indexObj = dict.get('Index');
  const index: number[] = Array.isArray(indexObj) ? (indexObj.filter((x) => typeof x === 'number') as number[]) : [0, typeof size === 'number' ? size : 0];
  const data = decodeStream(stream);
  const rowLen = w0 + w1 + w2;
  const entries = new Map<number, XrefEntry>();
  const field = (pos: number, width: number, dflt: number): number => {
    if (width === 0) return dflt;
    let v = 0;
    for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
    return v;
  };
  let row = 0;
  for (let k = 0; k + 1 < index.length; k += 2) {
    const first = index[k]!;
    const count = index[k + 1]!;
    for (let i = 0; i < count; i++, row++) {
      const pos = row * rowLen;
      if (pos + rowLen > data.length) return entries;
      const type = field(pos, w0, 1);
      const f2 = field(pos + w0, w1, 0);
      const f3 = field(pos + w0 + w1, w2, 0);
      const num = first + i;
      if (entries.has(num)) continue;
      if (type === 0) entries.set(num, { kind: 'free' });
      else if (type === 1) entries.set(num, { kind: 'offset', offset: f2 + headerOffset, gen: f3 });
      else if (type === 2) entries.set(num, { kind: 'compressed', stream: f2, index: f3 });
      // other types are reserved and treated as null objects (§7.5.8.3)
    }
  }
  return entries;
}

/**
 * Rebuilds the table by scanning the whole file for `N G obj` (later definitions win, as in an
 * incremental update), then takes the trailer from the last `trailer` dictionary or the last
 * xref stream that names a /Root. Objects inside object streams fill the gaps.
 */
export function reconstructCrossReference(buf: Buffer): CrossReference {
  const headerOffset = findHeaderOffset(buf);
  const text = buf.toString('latin1');
  const entries = new Map<number, XrefEntry>();
  const streams: number[] = [];
  let trailer: PdfDict | undefined;
  OBJ_HEADER_RE.lastIndex = 0;
  for (let m = OBJ_HEADER_RE.exec(text); m; m = OBJ_HEADER_RE.exec(text)) {
    const num = Number(m[1]);
    const offset = m.index;
    entries.set(num, { kind: 'offset', offset, gen: Number(m[2]) });
    try {
      const obj = parseIndirectObject(buf, offset);
      if (obj.value instanceof PdfStream) {
        const type = obj.value.dict.name('Type');
        if (type === 'ObjStm') streams.push(num);
        if (type === 'XRef' && obj.value.dict.has('Root')) trailer = merge(obj.value.dict, trailer);
        // Skip over stream data so that text inside it is not taken for objects.
        OBJ_HEADER_RE.lastIndex = Math.max(OBJ_HEADER_RE.lastIndex, obj.end);
      }
    } catch {
      // a damaged object is still listed; reading it later reports the damage
    }
  }
  for (let at = text.indexOf('trailer'); at >= 0; at = text.indexOf('trailer', at + 7)) {
    try {
      const t = parseObject(buf, at + 7);
      if (t.value instanceof PdfDict && t.value.has('Root')) trailer = merge(t.value, trailer);
    } catch {
      // ignore unreadable trailers
    }
  }
  for (const s of streams) {
    try {
      const e = entries.get(s);
      if (e?.kind !== 'offset') continue;
      const obj = parseIndirectObject(buf, e.offset);
      if (!(obj.value instanceof PdfStream)) continue;
      const data = decodeStream(obj.value);
      const n = obj.value.dict.get('N');
      let p = 0;
      for (let i = 0; i < (typeof n === 'number' ? n : 0); i++) {
        const num = readInteger(data, p);
        const off = num && readInteger(data, num.end);
        if (!num || !off) break;
        p = off.end;
        if (!entries.has(num.value)) entries.set(num.value, { kind: 'compressed', stream: s, index: i });
      }
    } catch {
      // unreadable object stream: its objects stay missing
    }
  }
  if (!trailer) {
    // No trailer at all: look for the catalog itself.
    for (const [num, e] of entries) {
      if (e.kind !== 'offset') continue;
      try {
        const obj = parseIndirectObject(buf, e.offset);
        if (obj.value instanceof PdfDict && obj.value.name('Type') === 'Catalog') {
          trailer = new PdfDict([['Root', parseObject(Buffer.from(`${num} ${obj.gen} R`), 0).value]]);
        }
      } catch {
        // keep looking
      }
    }
  }
  if (!trailer) {
    throw new SelloError('pdf_damaged', { detail: 'El PDF está dañado: no se encontró su catálogo ni su tabla de referencias. Vuelva a generarlo desde el programa original.' });
  }
  trailer.delete('Prev');
  trailer.delete('XRefStm');
  for (const k of ['Type', 'W', 'Index', 'Length', 'Filter', 'DecodeParms']) trailer.delete(k);
  return {
    entries,
    trailer,
    lastSection: 'table',
    lastStartxref: 0,
    headerOffset,
    reconstructed: true,
    size: sizeOf(new PdfDict(), entries),
  };
}

function merge(newer: PdfDict, older: PdfDict | undefined): PdfDict {
  const out = newer.clone();
  if (older) for (const [k, v] of older.map) if (!out.has(k)) out.set(k, v);
  return out;
}

/** True when `v` is a name equal to `n`. */
export function isName(v: PdfObject | undefined, n: string): boolean {
  return v instanceof PdfName && v.name === n;
}
