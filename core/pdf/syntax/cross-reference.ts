/**
 * Reading the cross-reference information (PDF 32000-1:2008 §7.5.4–§7.5.8, §7.5.6 incremental
 * updates, Annex F linearization): classic tables, xref streams with /W and /Index, hybrid files
 * (/XRefStm, §7.5.8.4), and /Prev chains over any number of revisions. Offsets in a file with
 * leading junk are counted from the `%PDF-` header, as Acrobat and qpdf do.
 *
 * Every number read here is checked where it is read (limits.ts): object numbers, generations,
 * /Size, /Prev and /XRefStm offsets. A section with a number out of bounds is broken, like one
 * with a wrong offset: the caller falls back to `reconstructCrossReference` (reconstruct.ts),
 * which rebuilds the table by scanning for `N G obj`, the way every reader recovers such files.
 *
 * The file may be given as consecutive parts (pdf-source.ts): every offset is absolute and
 * each section is parsed inside the part that holds it.
 */
import { SelloError } from '../../errors/index.js';
import { PDF_LIMITS, ReadBudget, isCount, isGeneration, isObjectNumber, isPdfSize } from './limits.js';
import { PdfSyntaxError, parseIndirectObject, parseObject, readInteger, readRegular, skipWhitespace } from './object-parser.js';
import { PdfDict, PdfStream, type PdfObject } from './pdf-objects.js';
import { PdfSource, type SourcePart } from './pdf-source.js';
import { BrokenXrefError, type XrefEntry } from './xref-entry.js';
import { decodeXrefStream } from './xref-stream.js';

export { BrokenXrefError, type XrefEntry } from './xref-entry.js';

export interface CrossReference {
  /** Newest entry for each object number (every key is within PDF_LIMITS.maxObjectNumber). */
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
  /**
   * The first number for a new object: one more than the highest object number in use (the
   * trailer's /Size or more; after a reconstruction, also above every number the file refers
   * to). An integer in 1 … 8,388,608.
   */
  size: number;
}

/** Finds `%PDF-` in the first KiB (§7.5.2; junk before it is tolerated as Annex H does). */
export function findHeaderOffset(buf: Buffer): number {
  const at = buf.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1');
  if (at < 0) {
    throw new SelloError('pdf_invalid', { detail: 'El archivo no empieza como un PDF (falta la cabecera %PDF-). Verifique que subió el archivo correcto.' });
  }
  return at;
}

/**
 * A chain already read from `buf` (the original of a signed output): reading the output back,
 * the update's section is read from its bytes, and the /Prev that leads into `buf` at the very
 * offset that chain started from takes the entries read then instead of reading them again.
 */
export interface KnownChain {
  buf: Buffer;
  xref: CrossReference;
}

const OBJ_HEADER_RE = /(?<![0-9])(\d{1,10})[\s\0]+(\d{1,5})[\s\0]+obj(?![A-Za-z0-9])/;

/**
 * Reads the cross-reference chain starting at the last `startxref` (§7.5.5), spending `budget`.
 * Throws SelloError `pdf_damaged` for a truncated file, BrokenXrefError when the chain is broken.
 */
export function readCrossReference(src: Buffer | PdfSource, budget?: ReadBudget, known?: KnownChain): CrossReference {
  const source = PdfSource.of(src);
  const spend = budget ?? new ReadBudget(source.length);
  const headerOffset = findHeaderOffset(source.first.buf);
  const sx = source.lastIndexOf('startxref');
  if (!sx) throw truncated();
  const sxBuf = sx.part.buf;
  const sxNum = readInteger(sxBuf, sx.at - sx.part.base + 9);
  if (!sxNum) throw new BrokenXrefError('startxref sin número');
  // An interrupted incremental save leaves objects after the last %%EOF and no new trailer:
  // signing on top would silently drop that update (§7.5.6).
  const tail = sxBuf.toString('latin1', sxNum.end, Math.min(sxBuf.length, sxNum.end + 4096));
  if (OBJ_HEADER_RE.test(tail)) throw truncated();

  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  let size = 0;
  let lastSection: 'table' | 'stream' | undefined;
  const seen = new Set<number>();
  let next: PdfObject | undefined = sxNum.value;
  while (next !== undefined) {
    if (!isCount(next)) throw new BrokenXrefError('/Prev inválido');
    if (seen.has(next) || seen.size >= PDF_LIMITS.maxRevisions) throw new BrokenXrefError('ciclo en /Prev');
    seen.add(next);
    if (known && trailer && next === known.xref.lastStartxref && headerOffset === known.xref.headerOffset && source.partAt(next + headerOffset)?.buf === known.buf) {
      // The rest of the chain is the one read from these very bytes a moment ago.
      for (const [num, e] of known.xref.entries) if (!entries.has(num)) entries.set(num, e);
      for (const [k, v] of known.xref.trailer.map) if (!trailer.has(k) && k !== 'Prev' && k !== 'XRefStm') trailer.set(k, v);
      break;
    }
    const section = readSection(source, next + headerOffset, headerOffset, spend);
    lastSection ??= section.kind;
    for (const [num, e] of section.entries) if (!entries.has(num)) entries.set(num, e);
    if (!trailer) {
      trailer = section.trailer.clone();
      // §7.5.5: /Size is one more than the highest object number, required in the newest
      // trailer (qpdf rejects a table whose trailer lacks it; an xref stream's is checked with
      // its rows). A /Size of 10.5, 2^31−1 or 2^53 would become the next object's number.
      const newest = trailer.get('Size');
      if (!isPdfSize(newest)) throw new BrokenXrefError('/Size inválido o ausente');
      size = newest;
    } else {
      for (const [k, v] of section.trailer.map) if (!trailer.has(k) && k !== 'Prev' && k !== 'XRefStm') trailer.set(k, v);
    }
    const prev = section.trailer.get('Prev');
    // qpdf rejects a /Prev that is not an integer; ending the chain there instead would append
    // to a chain other readers rebuild.
    if (prev !== undefined && !isCount(prev)) throw new BrokenXrefError('/Prev inválido');
    next = prev;
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
    size: sizeOf(size, entries),
  };
}

function truncated(): SelloError {
  return new SelloError('pdf_damaged', {
    detail: 'El PDF está incompleto (truncado): falta la tabla de referencias de su última modificación. Vuelva a guardarlo o exportarlo desde el programa original e inténtelo de nuevo.',
  });
}

/** `size`, raised to one more than the highest object number in `entries` (all within bounds). */
export function sizeOf(size: number, entries: Map<number, XrefEntry>): number {
  let out = size;
  for (const n of entries.keys()) if (n + 1 > out) out = n + 1;
  return out;
}

interface Section {
  kind: 'table' | 'stream';
  entries: Map<number, XrefEntry>;
  trailer: PdfDict;
}

function readSection(source: PdfSource, at: number, headerOffset: number, budget: ReadBudget): Section {
  const part = source.partAt(at);
  if (!part) throw new BrokenXrefError('startxref fuera del archivo');
  // Some writers point startxref at a comment or white-space before the section.
  const p = skipWhitespace(part.buf, at - part.base);
  const kw = readRegular(part.buf, p);
  try {
    if (kw.text === 'xref') return readTable(source, part, kw.end, headerOffset, budget);
    if (/^\d+$/.test(kw.text)) {
      const s = readStreamSection(source, part.base + p, headerOffset, budget);
      return { kind: 'stream', entries: s.entries, trailer: s.trailer };
    }
  } catch (err) {
    if (err instanceof PdfSyntaxError) throw new BrokenXrefError(err.message);
    throw err;
  }
  throw new BrokenXrefError(`no hay sección xref en ${at}`);
}

/**
 * §7.5.4: subsections `start count`, then `count` entries `oooooooooo ggggg n|f`. The loop
 * reads rows from the data (it stops at the first row that isn't one), never from `count`
 * alone; object numbers and generations out of bounds make the section broken.
 */
function readTable(source: PdfSource, part: SourcePart, pos: number, headerOffset: number, budget: ReadBudget): Section {
  const buf = part.buf;
  const entries = new Map<number, XrefEntry>();
  let p = pos;
  for (;;) {
    p = skipWhitespace(buf, p);
    const tok = readRegular(buf, p);
    if (tok.text === 'trailer') {
      const t = parseObject(buf, tok.end, budget);
      if (!(t.value instanceof PdfDict)) throw new BrokenXrefError('trailer no es un diccionario');
      const trailer = t.value;
      // Hybrid file (§7.5.8.4): the stream's entries complete this section and win over its table.
      const xs = trailer.get('XRefStm');
      if (xs !== undefined) {
        if (!isCount(xs)) throw new BrokenXrefError('/XRefStm inválido');
        const s = readStreamSection(source, xs + headerOffset, headerOffset, budget);
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
    if (!isObjectNumber(start.value) || (count.value > 0 && !isObjectNumber(start.value + count.value - 1))) {
      throw new BrokenXrefError(`subsección xref fuera de rango (${start.value} ${count.value})`);
    }
    p = count.end;
    for (let i = 0; i < count.value; i++) {
      budget.spend();
      const off = readInteger(buf, p);
      const gen = off && readInteger(buf, off.end);
      if (!off || !gen) throw new BrokenXrefError('entrada xref ilegible');
      const q = skipWhitespace(buf, gen.end);
      const type = buf[q];
      p = q + 1;
      const num = start.value + i;
      if (entries.has(num)) continue;
      if (type === 0x6e /* n */) {
        if (!isGeneration(gen.value)) throw new BrokenXrefError(`generación fuera de rango en la entrada ${num}`);
        entries.set(num, { kind: 'offset', offset: off.value + headerOffset, gen: gen.value });
      } else if (type === 0x66 /* f */) entries.set(num, { kind: 'free' });
      else throw new BrokenXrefError('tipo de entrada xref desconocido');
    }
  }
}

/** §7.5.8: a stream object of /Type /XRef at absolute offset `at`; its dictionary is the trailer. */
function readStreamSection(source: PdfSource, at: number, headerOffset: number, budget: ReadBudget): { entries: Map<number, XrefEntry>; trailer: PdfDict } {
  const part = source.partAt(at);
  if (!part) throw new BrokenXrefError('sección xref fuera del archivo');
  const obj = parseIndirectObject(part.buf, at - part.base, { budget, endstreams: part.endstreams });
  if (!(obj.value instanceof PdfStream) || obj.value.dict.name('Type') !== 'XRef') throw new BrokenXrefError('no es un stream /XRef');
  // §7.5.8.2: the dictionary's values are direct objects, and the section is read before any
  // table exists. Poppler reads exactly /Length bytes of it; a /Length that does not land on
  // `endstream` (Sello would find it anyway) makes poppler give up the section and, in a file
  // of xref streams, the whole file: the update's /Prev must not lead there.
  const length = obj.value.dict.get('Length');
  if (!isCount(length) || obj.value.data.length !== length) throw new BrokenXrefError('/Length del stream de referencias inválido');
  return { entries: decodeXrefStream(obj.value, headerOffset, budget), trailer: obj.value.dict };
}
