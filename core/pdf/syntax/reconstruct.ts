/**
 * Rebuilding the cross-reference table of a damaged file by scanning it (PDF 32000-1:2008
 * §7.5.4 readers' recovery, as qpdf, pdf.js and pyHanko do), in time linear in the file:
 *
 * - one native pass per keyword finds every `obj`, `stream`/`endstream` and `trailer`; object
 *   headers `N G obj` are recognised by walking back from `obj`, where qpdf and poppler look for
 *   them (first on a line, or after `endobj`); numbers out of ISO's bounds, such as
 *   `999999999 0 obj`, are not objects a conforming file can have, and are skipped;
 * - objects are not parsed: only a stream's dictionary (to skip its data, and to find object
 *   streams and xref streams) and trailer dictionaries are, each bounded by the next header or
 *   keyword, so that no parse runs over bytes another one already went through;
 * - a stream's data ends at its direct /Length when that lands on `endstream`, otherwise at the
 *   first `endstream` or `endobj` after it (qpdf's recovery of a stream length), found by binary
 *   search in the positions found once: a stream whose /Length is wrong must not hide the
 *   objects that follow it up to some distant `endstream` (qpdf and poppler, which skip no
 *   stream data at all, would find them and read a different file);
 * - which definition of a number counts follows the readers that rebuild tables, since after
 *   signing every reader gets Sello's choice: of the `N G obj` definitions the last in the file
 *   wins (qpdf's QPDF::reconstruct_xref and poppler's XRef::constructXRef both keep the last);
 *   a definition of that kind wins over one inside an object stream (qpdf never takes objects
 *   from object streams when rebuilding, poppler 22 neither, pdf.js prefers what it scanned);
 *   among object streams, the later one wins, as in an incremental update;
 * - objects inside object streams are taken from the streams' own headers (their object
 *   numbers, not an xref's claims), and only from an object stream that is still the definition
 *   of its own number, whose /Length other readers can follow and whose header every reader can
 *   read (object-stream.ts): the complete table written after a reconstruction must never name
 *   as an object stream what other readers cannot use as one (qpdf: "supposed object stream 1 is
 *   not a stream"); a catalog or page found only there is missing, and the file `pdf_damaged`;
 * - the next free object number is above every number defined and every number referred to
 *   (`N G R` anywhere in the file or in an object stream): a reference to an object the file
 *   never defines reads as null (§7.3.10), and the signature dictionary taking that number
 *   would become, say, a content stream's /Length.
 *
 * The trailer is the merge of the trailer dictionaries and xref-stream dictionaries that name a
 * /Root, newest first. /Encrypt is carried from any of them (a damaged newest trailer must not
 * hide that the file is encrypted), and an object that is plainly a standard encryption
 * dictionary makes the file encrypted even when no trailer names it: an encrypted file is never
 * signed as if plain.
 */
import { SelloError } from '../../errors/index.js';
import { findHeaderOffset, sizeOf, type CrossReference } from './cross-reference.js';
import { lowerBound, positionsOf } from './keyword-index.js';
import { ReadBudget, isCount, isGeneration, isObjectNumber } from './limits.js';
import { PdfSyntaxError, isRegular, isWhitespace, parseIndirectObject, parseObject, skipWhitespace } from './object-parser.js';
import { readObjectStreamHeader } from './object-stream.js';
import { PdfDict, PdfRef, PdfStream, PdfString, type PdfObject } from './pdf-objects.js';
import { decodeStream } from './stream-filters.js';
import type { XrefEntry } from './xref-entry.js';

/**
 * The `N G obj` headers found, in file order, as typed columns sized once (by the number of
 * `obj` keywords, an upper bound): a hostile file has hundreds of thousands, and an object per
 * header, or arrays grown one push at a time, is where the time would go.
 */
class Headers {
  readonly num: Int32Array;
  readonly gen: Int32Array;
  /** Where `N` starts. */
  readonly pos: Float64Array;
  /** Just after `obj`. */
  readonly end: Float64Array;
  length = 0;

  constructor(capacity: number) {
    this.num = new Int32Array(capacity);
    this.gen = new Int32Array(capacity);
    this.pos = new Float64Array(capacity);
    this.end = new Float64Array(capacity);
  }

  push(num: number, gen: number, pos: number, end: number): void {
    const i = this.length++;
    this.num[i] = num;
    this.gen[i] = gen;
    this.pos[i] = pos;
    this.end[i] = end;
  }
}

interface Compressed {
  stream: number;
  index: number;
}

interface Scan {
  headers: Headers;
  /** Indexes (into `headers`) of the headers outside stream data, and their positions. */
  kept: number[];
  keptPos: number[];
  /** The current definition of each object number: a kept header's index, or a place in an object stream. */
  direct: Map<number, number>;
  compressed: Map<number, Compressed>;
  /** Where each stream's data starts and where its `endstream` ends, in file order. */
  streamStarts: number[];
  streamEnds: number[];
  /** Indexes (into `headers`) of the kept headers that begin a stream. */
  streamHeaders: Set<number>;
  /** Object streams outside stream data, in file order, with the index of their header. */
  objectStreams: Array<{ num: number; header: number; stream: PdfStream }>;
  /** Dictionaries that may serve as the trailer: `trailer` dictionaries and xref streams'. */
  trailers: Array<{ at: number; dict: PdfDict }>;
  /** The first stream whose data has no end before the end of the file. */
  unterminatedStream?: number;
}

/**
 * Rebuilds the table of `buf`, spending `budget` (one per reconstruction). Throws `pdf_damaged`
 * when no catalog can be found, `pdf_too_complex` past the budget.
 */
export function reconstructCrossReference(buf: Buffer, budget: ReadBudget = new ReadBudget(buf.length)): CrossReference {
  const headerOffset = findHeaderOffset(buf);
  const scan = scanObjects(buf, headerOffset, budget);
  checkObjectsEnd(buf, scan, budget);
  addTrailers(buf, scan, budget);
  const objectStreamData = addObjectStreams(buf, scan, budget);

  let trailer: PdfDict | undefined;
  for (const t of scan.trailers) if (t.dict.has('Root')) trailer = merge(t.dict, trailer);
  // No trailer at all: look for the catalog itself.
  if (!trailer) {
    const root = findObject(buf, scan, '/Catalog', budget, (d) => d.name('Type') === 'Catalog');
    if (root) trailer = new PdfDict([['Root', root]]);
  }
  if (!trailer) {
    throw new SelloError('pdf_damaged', { detail: 'El PDF está dañado: no se encontró su catálogo ni su tabla de referencias. Vuelva a generarlo desde el programa original.' });
  }
  carryEncryption(buf, scan, trailer, budget);
  trailer.delete('Prev');
  trailer.delete('XRefStm');
  for (const k of ['Type', 'W', 'Index', 'Length', 'Filter', 'DecodeParms', 'Size']) trailer.delete(k);
  const entries = new Map<number, XrefEntry>();
  const h = scan.headers;
  for (const [n, i] of scan.direct) entries.set(n, { kind: 'offset', offset: h.pos[i]!, gen: h.gen[i]! });
  for (const [n, c] of scan.compressed) entries.set(n, { kind: 'compressed', stream: c.stream, index: c.index });
  let referenced = highestReference(buf, headerOffset, budget);
  for (const data of objectStreamData) referenced = Math.max(referenced, highestReference(data, 0, budget));
  return {
    entries,
    trailer,
    lastSection: 'table',
    lastStartxref: 0,
    headerOffset,
    reconstructed: true,
    size: sizeOf(referenced + 1, entries),
  };
}

/**
 * A file that ends inside one of its objects (a string, array or dictionary never closed, a
 * stream without `endstream` nor `endobj`) was cut short, and it cannot be signed: every reader
 * would read the appended update as the rest of that object (qpdf recovers a stream's length up
 * to the `endstream` of Sello's appearance stream), so signing would change what the original
 * says. Streams are noted while scanning; the last object is parsed here.
 */
function checkObjectsEnd(buf: Buffer, scan: Scan, budget: ReadBudget): void {
  if (scan.unterminatedStream !== undefined) throw endsInsideObject(scan.unterminatedStream);
  const last = scan.kept[scan.kept.length - 1];
  if (last === undefined || scan.streamHeaders.has(last)) return;
  try {
    parseIndirectObject(buf, scan.headers.pos[last]!, { budget });
  } catch (err) {
    if (!(err instanceof PdfSyntaxError)) throw err;
    if (err.reached >= buf.length) throw endsInsideObject(scan.headers.num[last]!);
  }
}

function endsInsideObject(num: number): SelloError {
  return new SelloError('pdf_damaged', {
    detail: `El PDF está incompleto (truncado): termina a mitad de su objeto ${num}, y cualquier firma añadida se leería como parte de ese objeto. Vuelva a guardarlo o exportarlo desde el programa original e inténtelo de nuevo.`,
  });
}

/** Finds the headers, skipping stream data, and the streams that matter. */
function scanObjects(buf: Buffer, headerOffset: number, budget: ReadBudget): Scan {
  const { headers, endobjs } = findHeaders(buf, headerOffset, budget);
  const streamKeywords: number[] = [];
  const endstreams: number[] = [];
  for (const at of positionsOf(buf, 'stream')) {
    if (at >= 3 && buf[at - 3] === 0x65 /* e */ && buf[at - 2] === 0x6e /* n */ && buf[at - 1] === 0x64 /* d */) endstreams.push(at - 3);
    else streamKeywords.push(at);
  }
  const scan: Scan = {
    headers,
    kept: [],
    keptPos: [],
    direct: new Map(),
    compressed: new Map(),
    streamStarts: [],
    streamHeaders: new Set(),
    streamEnds: [],
    objectStreams: [],
    trailers: [],
  };
  let skipUntil = -1;
  for (let i = 0; i < headers.length; i++) {
    const pos = headers.pos[i]!;
    if (pos < skipUntil) continue; // text inside a stream's data is not an object
    budget.spend();
    scan.kept.push(i);
    scan.keptPos.push(pos);
    scan.direct.set(headers.num[i]!, i); // later definitions win (§7.5.6)
    const next = i + 1 < headers.length ? headers.pos[i + 1]! : buf.length;
    // Only an object with a `stream` keyword before the next header can be a stream.
    const sk = streamKeywords[lowerBound(streamKeywords, headers.end[i]!)];
    if (sk === undefined || sk >= next) continue;
    const stream = streamAt(buf, headers.end[i]!, next, endstreams, endobjs, budget);
    if (stream === 'unterminated') scan.unterminatedStream ??= headers.num[i]!;
    if (!stream || stream === 'unterminated') continue;
    scan.streamStarts.push(stream.start);
    scan.streamHeaders.add(i);
    scan.streamEnds.push(stream.after);
    skipUntil = stream.after;
    const type = stream.dict.name('Type');
    if (type === 'ObjStm') scan.objectStreams.push({ num: headers.num[i]!, header: i, stream: new PdfStream(stream.dict, buf.subarray(stream.start, stream.dataEnd)) });
    if (type === 'XRef') scan.trailers.push({ at: pos, dict: stream.dict });
  }
  return scan;
}

/**
 * Every `N G obj` from `from` on, by walking back from each `obj` (white-space, up to five
 * digits, white-space, up to ten digits not preceded by a digit), and where each `endobj` is.
 * Each walk covers bytes no other walk covers, so the whole is linear.
 */
function findHeaders(buf: Buffer, from: number, budget: ReadBudget): { headers: Headers; endobjs: number[] } {
  const candidates = positionsOf(buf, 'obj');
  const out = new Headers(candidates.length);
  const endobjs: number[] = [];
  for (const at of candidates) {
    if (at < from) continue;
    budget.spend();
    if (isAlnum(buf[at + 3])) continue;
    if (at >= 3 && buf[at - 3] === 0x65 /* e */ && buf[at - 2] === 0x6e /* n */ && buf[at - 1] === 0x64 /* d */) {
      endobjs.push(at - 3);
      continue;
    }
    let p = at - 1;
    if (p < from || !isWhitespace(buf[p])) continue;
    while (p >= from && isWhitespace(buf[p])) p--;
    const genEnd = p + 1;
    let gen = 0;
    for (let scale = 1; p >= from && genEnd - p <= 6 && isDigit(buf[p]); p--, scale *= 10) gen += (buf[p]! - 0x30) * scale;
    const genStart = p + 1;
    if (genStart === genEnd || genEnd - genStart > 5 || p < from || !isWhitespace(buf[p])) continue;
    while (p >= from && isWhitespace(buf[p])) p--;
    const numEnd = p + 1;
    let num = 0;
    for (let scale = 1; p >= from && numEnd - p <= 11 && isDigit(buf[p]); p--, scale *= 10) num += (buf[p]! - 0x30) * scale;
    const numStart = p + 1;
    if (numStart === numEnd || numEnd - numStart > 10 || (p >= from && isDigit(buf[p]))) continue;
    // Not an object a conforming file can have (Annex C): skipped, never sized from.
    if (!isObjectNumber(num) || !isGeneration(gen) || !startsLine(buf, numStart, from)) continue;
    out.push(num, gen, numStart, at + 3);
  }
  return { headers: out, endobjs };
}

/**
 * Whether the header whose number starts at `at` is where other readers look for one when they
 * rebuild a table: first on its line (after blanks), as qpdf takes only a line's first tokens
 * (QPDF::reconstruct_xref) and poppler a line's start, or right after `endobj`, which poppler
 * also accepts (XRef::constructXRef). `1 0 obj (1 0 obj (…` on one line is one object for both,
 * the first; taking the last, as Sello did, gave the file a definition no other reader sees.
 */
function startsLine(buf: Buffer, at: number, from: number): boolean {
  let p = at - 1;
  while (p >= from && (buf[p] === 0x20 || buf[p] === 0x09 || buf[p] === 0x0c || buf[p] === 0x00)) p--;
  if (p < from || buf[p] === 0x0a || buf[p] === 0x0d) return true;
  return p - 5 >= from && buf[p] === 0x6a /* j */ && buf.toString('latin1', p - 5, p + 1) === 'endobj';
}

/**
 * The highest object number referred to by an `N G R` in `buf` from `from` on (0 when none),
 * found by walking back from each `R` followed by a delimiter: white-space, up to five digits,
 * white-space, up to seven digits. Numbers beyond 8,388,607 can't collide with a number Sello
 * writes and are passed over. Text that merely looks like a reference (inside a content stream)
 * can only raise the result, which costs nothing but a higher first number for new objects.
 * `indexOf` per candidate and no array of positions: a file of nothing but `R` stays linear and
 * allocates nothing.
 */
function highestReference(buf: Buffer, from: number, budget: ReadBudget): number {
  let highest = 0;
  for (let at = buf.indexOf(0x52 /* R */, from); at >= 0; at = buf.indexOf(0x52, at + 1)) {
    budget.spend();
    if (isRegular(buf[at + 1])) continue;
    let p = at - 1;
    if (p < from || !isWhitespace(buf[p])) continue;
    while (p >= from && isWhitespace(buf[p])) p--;
    const genEnd = p + 1;
    while (p >= from && genEnd - p <= 6 && isDigit(buf[p])) p--;
    if (p + 1 === genEnd || genEnd - (p + 1) > 5 || p < from || !isWhitespace(buf[p])) continue;
    while (p >= from && isWhitespace(buf[p])) p--;
    const numEnd = p + 1;
    let num = 0;
    for (let scale = 1; p >= from && numEnd - p <= 8 && isDigit(buf[p]); p--, scale *= 10) num += (buf[p]! - 0x30) * scale;
    if (p + 1 === numEnd || numEnd - (p + 1) > 7 || (p >= from && isDigit(buf[p]))) continue;
    if (isObjectNumber(num) && num > highest) highest = num;
  }
  return highest;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function isAlnum(c: number | undefined): boolean {
  return c !== undefined && (isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));
}

/**
 * The stream of the object whose header ends at `headerEnd`, if a dictionary follows it (parsed
 * no further than `next`, the next header) and then the keyword `stream`: its data and the
 * offset after its `endstream`. Undefined when it is not a stream; `unterminated` when its data
 * has no end (no `endstream` nor `endobj`) before the end of the file.
 */
function streamAt(
  buf: Buffer,
  headerEnd: number,
  next: number,
  endstreams: number[],
  endobjs: number[],
  budget: ReadBudget,
): { dict: PdfDict; start: number; dataEnd: number; after: number } | 'unterminated' | undefined {
  let dict: PdfDict;
  let sk: number;
  try {
    const r = parseObject(buf.subarray(0, next), headerEnd, budget);
    if (!(r.value instanceof PdfDict)) return undefined;
    sk = skipWhitespace(buf, r.end);
    if (buf.toString('latin1', sk, sk + 6) !== 'stream' || isRegular(buf[sk + 6])) return undefined;
    dict = r.value;
  } catch (err) {
    if (err instanceof PdfSyntaxError) return undefined;
    throw err;
  }
  let start = sk + 6;
  if (buf[start] === 0x0d) start++;
  if (buf[start] === 0x0a) start++;
  const length = dict.get('Length');
  if (isCount(length) && start + length <= buf.length) {
    const q = skipWhitespace(buf, start + length);
    if (buf.toString('latin1', q, q + 9) === 'endstream') return { dict, start, dataEnd: start + length, after: q + 9 };
  }
  // A wrong /Length: the data ends at the first `endstream` or `endobj`, whichever comes first.
  const es = endstreams[lowerBound(endstreams, start)];
  const eo = endobjs[lowerBound(endobjs, start)];
  if (es === undefined && eo === undefined) return 'unterminated';
  const end = eo === undefined || (es !== undefined && es < eo) ? es! : eo;
  let dataEnd = end;
  if (buf[dataEnd - 1] === 0x0a) dataEnd--;
  if (buf[dataEnd - 1] === 0x0d) dataEnd--;
  return { dict, start, dataEnd: Math.max(start, dataEnd), after: end === es ? es + 9 : eo! + 6 };
}

/** `trailer` dictionaries outside stream data, each parsed only up to the next header or `trailer`. */
function addTrailers(buf: Buffer, scan: Scan, budget: ReadBudget): void {
  // (`trailer` keywords are few in a real file; each parse below stops at the next header or keyword.)
  const keywords = positionsOf(buf, 'trailer');
  for (let i = 0; i < keywords.length; i++) {
    const at = keywords[i]!;
    // Only a dictionary can be a trailer: anything else is skipped without a parse.
    const open = skipWhitespace(buf, at + 7);
    if (isRegular(buf[at + 7]) || buf[open] !== 0x3c || buf[open + 1] !== 0x3c || insideStream(scan, at)) continue;
    const limit = Math.min(keywords[i + 1] ?? buf.length, scan.keptPos[lowerBound(scan.keptPos, at)] ?? buf.length);
    try {
      const t = parseObject(buf.subarray(0, limit), at + 7, budget);
      if (t.value instanceof PdfDict) scan.trailers.push({ at, dict: t.value });
    } catch (err) {
      if (!(err instanceof PdfSyntaxError)) throw err;
    }
  }
  scan.trailers.sort((a, b) => a.at - b.at);
}

function insideStream(scan: Scan, at: number): boolean {
  const i = lowerBound(scan.streamStarts, at + 1) - 1;
  return i >= 0 && at < scan.streamEnds[i]!;
}

/**
 * The objects listed in each object stream's header (§7.5.7), for the streams that are still
 * the definition of their own number, whose /Length other readers can follow (`lengthUsable`)
 * and whose header is readable (object-stream.ts). A number with an `N G obj` definition keeps
 * it; among object streams the later one wins. Streams themselves are direct objects, so an
 * object stream's own number is never taken from another's header. Returns the decoded data of
 * the streams used (their references count too).
 */
function addObjectStreams(buf: Buffer, scan: Scan, budget: ReadBudget): Buffer[] {
  const used: Array<{ num: number; length: PdfObject | undefined; data: Buffer }> = [];
  for (const s of scan.objectStreams) {
    // Superseded by a later definition of its number: what it holds is no longer reachable,
    // and a compressed entry naming it would name whatever replaced it.
    if (scan.direct.get(s.num) !== s.header) continue;
    const length = s.stream.dict.get('Length');
    if (!lengthUsable(buf, scan, length, budget)) continue;
    let data: Buffer;
    try {
      data = decodeStream(s.stream, budget);
    } catch (err) {
      if (err instanceof PdfSyntaxError) continue; // unreadable object stream: its objects stay missing
      throw err;
    }
    const header = readObjectStreamHeader(data, s.stream.dict.get('N'), s.stream.dict.get('First'), budget);
    if (typeof header === 'string') continue; // no reader can use it: its objects stay missing
    used.push({ num: s.num, length, data });
    for (let i = 0; i < header.nums.length; i++) {
      const objNum = header.nums[i]!;
      // Listed even when its offset is past the data (a truncated stream): qpdf takes every
      // object the header lists for one the table must list too ("unexpected xref entry type"),
      // and reads a missing one as null, as it would read a number the table does not list.
      if (!isObjectNumber(objNum) || scan.direct.has(objNum)) continue;
      scan.compressed.set(objNum, { stream: s.num, index: i });
    }
  }
  // Now that every compressed object is known: a /Length that names one of them needs an
  // object stream read before this one can be, which can loop. Dropping entries only makes
  // other /Length targets missing (null: usable), so one pass settles it.
  const dropped = new Set(used.filter((u) => u.length instanceof PdfRef && scan.compressed.has(u.length.num)).map((u) => u.num));
  if (dropped.size > 0) for (const [n, c] of scan.compressed) if (dropped.has(c.stream)) scan.compressed.delete(n);
  return used.filter((u) => !dropped.has(u.num)).map((u) => u.data);
}

/**
 * Whether other readers can get from an object stream's /Length (§7.3.8.2) to its data, as far
 * as the `N G obj` definitions tell (compressed targets are checked once all are known). Sello
 * finds the data by `endstream` when /Length misses it, and so do qpdf and poppler when the
 * length is merely wrong or not an integer; but poppler gives up a stream whose /Length is
 * negative, and both give it up when resolving an indirect /Length loops: through another
 * stream (whose own /Length may name this one: poppler "is being already parsed", qpdf "loop
 * detected", then "supposed object stream 1 is not a stream") or through an object stream.
 */
function lengthUsable(buf: Buffer, scan: Scan, length: PdfObject | undefined, budget: ReadBudget): boolean {
  let value = length;
  if (length instanceof PdfRef) {
    const i = scan.direct.get(length.num);
    if (i === undefined) return true; // null, or compressed: settled later
    if (scan.streamHeaders.has(i)) return false;
    const k = lowerBound(scan.keptPos, scan.headers.pos[i]!);
    try {
      value = parseIndirectObject(buf.subarray(0, scan.keptPos[k + 1] ?? buf.length), scan.headers.pos[i]!, { budget }).value;
    } catch (err) {
      if (err instanceof PdfSyntaxError) return true; // unreadable: not an integer, recovered by scanning
      throw err;
    }
  }
  return !(typeof value === 'number' && value < 0);
}

/**
 * The last object (outside stream data, still the current definition of its number) that
 * contains `needle` and whose dictionary passes `test`. Each candidate object is parsed once,
 * bounded by the next header.
 */
function findObject(buf: Buffer, scan: Scan, needle: string, budget: ReadBudget, test: (d: PdfDict) => boolean): PdfRef | undefined {
  const tried = new Set<number>();
  let found: PdfRef | undefined;
  for (const at of positionsOf(buf, needle)) {
    const k = lowerBound(scan.keptPos, at + 1) - 1;
    if (k < 0 || tried.has(k) || insideStream(scan, at)) continue;
    tried.add(k);
    const i = scan.kept[k]!;
    const num = scan.headers.num[i]!;
    if (scan.direct.get(num) !== i) continue; // a later definition replaced this one
    try {
      const obj = parseIndirectObject(buf.subarray(0, scan.keptPos[k + 1] ?? buf.length), scan.headers.pos[i]!, { budget });
      if (obj.value instanceof PdfDict && test(obj.value)) found = new PdfRef(num, scan.headers.gen[i]!);
    } catch (err) {
      if (!(err instanceof PdfSyntaxError)) throw err;
    }
  }
  return found;
}

/**
 * /Encrypt (and the /ID its key depends on, §7.6.3.3) from the newest dictionary that has it
 * when the chosen trailer lacks it; failing that, a standard encryption dictionary found in the
 * file (§7.6.3.2 Table 21: /Filter /Standard with /O and /U strings).
 */
function carryEncryption(buf: Buffer, scan: Scan, trailer: PdfDict, budget: ReadBudget): void {
  if (trailer.has('Encrypt')) return;
  for (let i = scan.trailers.length - 1; i >= 0; i--) {
    const d = scan.trailers[i]!.dict;
    if (!d.has('Encrypt')) continue;
    trailer.set('Encrypt', d.get('Encrypt')!);
    if (!trailer.has('ID') && d.has('ID')) trailer.set('ID', d.get('ID')!);
    return;
  }
  const enc = findObject(buf, scan, '/Standard', budget, (d) => d.name('Filter') === 'Standard' && d.get('O') instanceof PdfString && d.get('U') instanceof PdfString);
  if (enc) trailer.set('Encrypt', enc);
}

function merge(newer: PdfDict, older: PdfDict | undefined): PdfDict {
  const out = newer.clone();
  if (older) for (const [k, v] of older.map) if (!out.has(k)) out.set(k, v);
  return out;
}
