/**
 * Hostile PDFs, generated: each function returns a small Buffer built by hand the way an attacker
 * (or a fuzzer) would, one for each class of issue 15 (numbers beyond ISO's bounds, quadratic
 * recovery, inflation bombs, counts that size allocations, cycles, a hidden /Encrypt, object
 * streams that disagree with the xref). They stay small: the bounds must refuse them by what
 * they claim, not by what they cost.
 *
 * All files share one page tree: 1 catalog, 2 pages, 3 an A4 page (unless said otherwise).
 */
import { deflateRawSync, constants } from 'node:zlib';
import { expect } from 'vitest';
import { SelloError } from '../../core/errors/index.js';

const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const PAGES = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>';

type Body = string | Buffer;

/** Objects `[num, body]` after `header`, each `num 0 obj … endobj`, with their offsets. */
function assemble(objects: Array<[number, Body]>, header = '%PDF-1.7\n'): { bytes: Buffer; offsets: Map<number, number> } {
  const parts: Buffer[] = [Buffer.from(header, 'latin1')];
  let pos = parts[0]!.length;
  const offsets = new Map<number, number>();
  for (const [num, body] of objects) {
    offsets.set(num, pos);
    const b = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(b);
    pos += b.length;
  }
  return { bytes: Buffer.concat(parts), offsets };
}

/** A stream object body: `dict` (without `>>`-closing /Length) plus `data`. */
function stream(dictEntries: string, data: Buffer, length: number | string = data.length): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dictEntries} /Length ${length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

/** A classic xref table for objects 0 … size-1 (missing ones free) and its trailer. */
function classicTail(offsets: Map<number, number>, size: number, trailer: string, xrefAt: number, startxref: number = xrefAt): string {
  let t = `xref\n0 ${size}\n0000000000 65535 f\r\n`;
  for (let i = 1; i < size; i++) {
    const off = offsets.get(i);
    t += off === undefined ? '0000000000 00001 f\r\n' : `${String(off).padStart(10, '0')} 00000 n\r\n`;
  }
  return `${t}trailer\n${trailer}\nstartxref\n${startxref}\n%%EOF\n`;
}

/** A well-formed classic file of `objects`, with `trailer` (default `/Size n /Root 1 0 R`). */
function classicPdf(objects: Array<[number, Body]>, opts: { trailer?: string; size?: number; startxref?: number } = {}): Buffer {
  const { bytes, offsets } = assemble(objects);
  const size = opts.size ?? Math.max(...objects.map(([n]) => n)) + 1;
  const trailer = opts.trailer ?? `<< /Size ${size} /Root 1 0 R >>`;
  return Buffer.concat([bytes, Buffer.from(classicTail(offsets, size, trailer, bytes.length, opts.startxref), 'latin1')]);
}

interface XrefRow {
  /** 0, 1 and 2 are the types §7.5.8.3 defines; anything else is a damaged row. */
  type: number;
  f2: number;
  f3: number;
}

/** Uncompressed /W [1 4 2] rows. */
function xrefRows(rows: XrefRow[]): Buffer {
  const out = Buffer.alloc(rows.length * 7);
  rows.forEach((r, i) => {
    out[i * 7] = r.type;
    out.writeUInt32BE(r.f2, i * 7 + 1);
    out.writeUInt16BE(r.f3, i * 7 + 5);
  });
  return out;
}

/** What a test breaks in an otherwise good xref stream: its rows, its dictionary, its header's generation. */
interface XrefStreamDamage {
  rows?: (rows: XrefRow[]) => void;
  dict?: (dict: string) => string;
  generation?: string;
  length?: string;
}

/**
 * A file with an xref stream: `direct` objects at their offsets, `compressed` objects
 * `[num, stream, index]` inside object streams, the xref stream numbered after everything.
 */
function xrefStreamPdf(direct: Array<[number, Body]>, compressed: Array<[number, number, number]>, extraDict = '', damage: XrefStreamDamage = {}): Buffer {
  const { bytes, offsets } = assemble(direct);
  const xrefNum = Math.max(...direct.map(([n]) => n), ...compressed.map(([n]) => n)) + 1;
  const rows: XrefRow[] = [];
  for (let n = 0; n <= xrefNum; n++) {
    const c = compressed.find(([num]) => num === n);
    if (n === xrefNum) rows.push({ type: 1, f2: bytes.length, f3: 0 });
    else if (c) rows.push({ type: 2, f2: c[1], f3: c[2] });
    else if (offsets.has(n)) rows.push({ type: 1, f2: offsets.get(n)!, f3: 0 });
    else rows.push({ type: 0, f2: 0, f3: n === 0 ? 65535 : 0 });
  }
  damage.rows?.(rows);
  const data = xrefRows(rows);
  const dict = `/Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Root 1 0 R ${extraDict}`;
  const xs = Buffer.concat([
    Buffer.from(`${xrefNum} ${damage.generation ?? '0'} obj\n`, 'latin1'),
    stream(damage.dict ? damage.dict(dict) : dict, data, damage.length ?? data.length),
    Buffer.from(`\nendobj\nstartxref\n${bytes.length}\n%%EOF\n`, 'latin1'),
  ]);
  return Buffer.concat([bytes, xs]);
}

/** An object stream body (§7.5.7) holding `objects` in order, uncompressed. */
function objectStream(objects: Array<[number, string]>, extraDict = ''): Buffer {
  let head = '';
  let body = '';
  for (const [num, text] of objects) {
    head += `${num} ${body.length} `;
    body += `${text}\n`;
  }
  return stream(`/Type /ObjStm /N ${objects.length} /First ${head.length} ${extraDict}`, Buffer.from(head + body, 'latin1'));
}

/**
 * A damaged file (startxref points nowhere) that also holds `<num> 0 obj`: rebuilding its
 * table used to size an array from `num` (999,999,999 → heap out of memory).
 */
export function hugeObjectNumber(num = 999_999_999): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [num, '<< /Type /Annot /Subtype /Text >>'],
    ],
    { size: 4, startxref: 7 },
  );
}

/** A readable-looking xref table with a subsection for object `num` (beyond ISO's bound). */
export function hugeObjectNumberInTable(num = 999_999_999): Buffer {
  const { bytes, offsets } = assemble([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
  ]);
  let t = 'xref\n0 4\n0000000000 65535 f\r\n';
  for (let i = 1; i < 4; i++) t += `${String(offsets.get(i)).padStart(10, '0')} 00000 n\r\n`;
  t += `${num} 1\n${String(offsets.get(3)).padStart(10, '0')} 00000 n\r\n`;
  return Buffer.concat([bytes, Buffer.from(`${t}trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${bytes.length}\n%%EOF\n`, 'latin1')]);
}

/** A valid file that already uses object number 8,388,607, the largest ISO allows: no room for a new object. */
export function maxObjectNumberUsed(): Buffer {
  const max = 8_388_607;
  const { bytes, offsets } = assemble([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
    [max, '<< /Type /Annot /Subtype /Text >>'],
  ]);
  let t = 'xref\n0 4\n0000000000 65535 f\r\n';
  for (let i = 1; i < 4; i++) t += `${String(offsets.get(i)).padStart(10, '0')} 00000 n\r\n`;
  t += `${max} 1\n${String(offsets.get(max)).padStart(10, '0')} 00000 n\r\n`;
  return Buffer.concat([bytes, Buffer.from(`${t}trailer\n<< /Size ${max + 1} /Root 1 0 R >>\nstartxref\n${bytes.length}\n%%EOF\n`, 'latin1')]);
}

/** The end of a file whose `startxref` points at the header: readers then rebuild the table. */
const DAMAGED_END = '\nstartxref\n0\n%%EOF\n';

/**
 * `kb` KiB of `1 0 obj (`: every header opens a string that never closes. Rebuilding the table
 * used to parse each to the end of the file (256 KiB: 108 s).
 */
export function quadraticRecovery(kb: number): Buffer {
  return Buffer.from('%PDF-1.4\n' + '1 0 obj ('.repeat(Math.ceil((kb * 1024) / 9)) + DAMAGED_END, 'latin1');
}

/** `kb` KiB of streams without `endstream`: each used to search the rest of the file for one. */
export function unterminatedStreams(kb: number): Buffer {
  const unit = '1 0 obj << /Length 999999 >> stream\nxx\n';
  return Buffer.from('%PDF-1.4\n' + unit.repeat(Math.ceil((kb * 1024) / unit.length)) + DAMAGED_END, 'latin1');
}

/**
 * `kb` KiB of `trailer (` and `/Catalog` names inside one unclosed object: rebuilding looks at
 * every trailer and, with no trailer found, at every object naming /Catalog.
 */
export function repeatedRecoveryKeywords(kb: number): Buffer {
  const n = Math.ceil((kb * 1024) / 2 / 10);
  return Buffer.from('%PDF-1.4\n1 0 obj [' + '/Catalog '.repeat(n) + '\n' + 'trailer ( '.repeat(n) + DAMAGED_END, 'latin1');
}

/**
 * A zlib stream of `head` followed by `zeros` zero bytes, built without ever holding the zeros:
 * one compressed MiB of zeros ends in a full flush (§RFC 1951: the dictionary is reset), so it
 * can be repeated; the Adler-32 is computed for the real content.
 */
function zlibOfZeros(head: Buffer, mb: number): Buffer {
  const full = { finishFlush: constants.Z_FULL_FLUSH };
  const mib = deflateRawSync(Buffer.alloc(1024 * 1024), full);
  const parts = [Buffer.from([0x78, 0x9c]), deflateRawSync(head, full)];
  for (let i = 0; i < mb; i++) parts.push(mib);
  parts.push(deflateRawSync(Buffer.alloc(0)));
  // Adler-32 (RFC 1950 §8.2): zeros leave a unchanged and add a to b once per byte.
  let a = 1;
  let b = 0;
  for (const c of head) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  b = (b + ((mb * 1024 * 1024) % 65521) * a) % 65521;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  parts.push(adler);
  return Buffer.concat(parts);
}

/**
 * The page lives in an object stream whose FlateDecode data inflates to `mb` MiB (about a
 * thousand times its size): the object stream has to be inflated to sign.
 */
export function inflateBomb(mb: number): Buffer {
  const head = '3 0 ';
  const inflated = Buffer.from(head + PAGE + '\n', 'latin1');
  const data = zlibOfZeros(inflated, mb);
  const objstm = stream(`/Type /ObjStm /N 1 /First ${head.length} /Filter /FlateDecode`, data);
  return xrefStreamPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, objstm],
    ],
    [[3, 4, 0]],
  );
}

/**
 * An xref stream of `/W [0 0 0] /Index [0 count]`: rows of zero bytes, as many as claimed
 * (497 bytes with a count of 100,000,000 took 1.4 GB and 9 s). The objects are intact.
 */
export function xrefStreamHugeIndex(count = 100_000_000): Buffer {
  const { bytes } = assemble([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
  ]);
  const xs = `4 0 obj\n<< /Type /XRef /Size 5 /W [0 0 0] /Index [0 ${count}] /Root 1 0 R /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n${bytes.length}\n%%EOF\n`;
  return Buffer.concat([bytes, Buffer.from(xs, 'latin1')]);
}

/**
 * The catalog carries a literal string of `mb` MiB (a 40 MB one became a 40M-element array,
 * 1.9 GB). With `escaped`, the string also has escapes and CRs, so it must be decoded.
 */
export function hugeLiteralString(mb: number, escaped = false): Buffer {
  const size = mb * 1024 * 1024;
  const body = Buffer.alloc(size, 'a');
  if (escaped) {
    for (let i = 0; i + 8 < size; i += 4096) body.write('\\(\\101\r\n', i, 'latin1');
  }
  const catalog = Buffer.concat([Buffer.from('<< /Type /Catalog /Pages 2 0 R /Junk (', 'latin1'), body, Buffer.from(') >>', 'latin1')]);
  return classicPdf([
    [1, catalog],
    [2, PAGES],
    [3, PAGE],
  ]);
}

/**
 * An xref stream with a PNG predictor whose /DecodeParms are `parms` (e.g. `/Columns 2000000000`,
 * which allocated 2 GB, or `/Columns -4`, a raw RangeError). The objects are intact.
 */
function predictorXref(parms: string): Buffer {
  const { bytes, offsets } = assemble([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
  ]);
  const rows = xrefRows([
    { type: 0, f2: 0, f3: 65535 },
    { type: 1, f2: offsets.get(1)!, f3: 0 },
    { type: 1, f2: offsets.get(2)!, f3: 0 },
    { type: 1, f2: offsets.get(3)!, f3: 0 },
    { type: 1, f2: bytes.length, f3: 0 },
  ]);
  // PNG "None" rows: a tag byte 0 before each 7-byte row (§7.4.4.4).
  const raw = Buffer.concat(Array.from({ length: 5 }, (_, i) => Buffer.concat([Buffer.from([0]), rows.subarray(i * 7, i * 7 + 7)])));
  const data = zlibOfZeros(raw, 0);
  const xs = Buffer.concat([
    Buffer.from('4 0 obj\n', 'latin1'),
    stream(`/Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 ${parms} >>`, data),
    Buffer.from(`\nendobj\nstartxref\n${bytes.length}\n%%EOF\n`, 'latin1'),
  ]);
  return Buffer.concat([bytes, xs]);
}

/** The same xref stream with `/Columns 7`: what the predictor files above break. */
export function wellFormedPredictorXref(): Buffer {
  return predictorXref('/Columns 7');
}

/** `/Columns 2e9` in an xref stream's /DecodeParms (it allocated 2 GB). */
export function hugeColumns(columns = 2_000_000_000): Buffer {
  return predictorXref(`/Columns ${columns}`);
}

/** `/Columns -4` in an xref stream's /DecodeParms (a raw Buffer RangeError). */
export function negativeColumns(): Buffer {
  return predictorXref('/Columns -4');
}

/**
 * A trailer `/Size` of `v` (10.5, 1e12, 2^31−1, 2^53): it became the next object number
 * (`10.5 0 obj`), and the signed output was unreadable.
 */
export function fractionalSize(v: number | string): Buffer {
  const text = typeof v === 'number' ? (Number.isInteger(v) ? BigInt(v).toString() : String(v)) : v;
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
    ],
    { size: 4, trailer: `<< /Size ${text} /Root 1 0 R >>` },
  );
}

/** A standard-handler encryption dictionary (§7.6.3.2, R2, values that no empty password opens). */
const ENCRYPT_DICT = `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${'a1'.repeat(32)}> /U <${'b2'.repeat(32)}> >>`;

/**
 * An encrypted file whose table is damaged (startxref points nowhere) and whose newest trailer
 * lost /Encrypt: the trailer that names it (an earlier revision's) lost its /Root. Rebuilding
 * used to take only trailers with /Root, and signed the file as if plain.
 */
export function damagedTrailerHidingEncrypt(): Buffer {
  const { bytes, offsets } = assemble([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
    [4, ENCRYPT_DICT],
  ]);
  const id = `[<${'0f'.repeat(16)}> <${'0f'.repeat(16)}>]`;
  const first = classicTail(offsets, 5, `<< /Size 5 /Encrypt 4 0 R /ID ${id} >>`, bytes.length);
  const withFirst = Buffer.concat([bytes, Buffer.from(first, 'latin1')]);
  const second = `xref\n0 1\n0000000000 65535 f\r\ntrailer\n<< /Size 5 /Root 1 0 R /Prev ${bytes.length} >>\nstartxref\n999999\n%%EOF\n`;
  return Buffer.concat([withFirst, Buffer.from(second, 'latin1')]);
}

/** A damaged file with a standard encryption dictionary that no trailer names. */
export function unnamedEncryptionDictionary(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [4, ENCRYPT_DICT],
    ],
    { size: 5, startxref: 3 },
  );
}

/**
 * The xref says object 3 (the page, 300×400) is at index 0 of object stream 4; the stream's
 * header says index 0 holds object 9 (another page-like dictionary, 100×100) and object 3 is at
 * index 1. It used to be read (and signed) as object 3.
 */
export function objStmHeaderMismatch(): Buffer {
  const objstm = objectStream([
    [9, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>'],
    [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>'],
  ]);
  return xrefStreamPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, objstm],
    ],
    [
      [3, 4, 0],
      [9, 4, 1],
    ],
  );
}

/**
 * The page is in object stream 4, whose /Length is `5 0 R`; object 5 is a stream whose
 * /Length is `4 0 R` ("Maximum call stack size exceeded").
 */
export function lengthCycle(): Buffer {
  const objstm = objectStream([[3, PAGE]]);
  const cyclic = objstm.toString('latin1').replace(/\/Length \d+ >>/, '/Length 5 0 R >>');
  return xrefStreamPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, Buffer.from(cyclic, 'latin1')],
      [5, stream('', Buffer.from('0123456789'), '4 0 R')],
    ],
    [[3, 4, 0]],
  );
}

/**
 * The xref says object stream 4 (which holds the page) is itself inside object stream 4;
 * with `cycle`, that 4 is inside 5 and 5 inside 4 ("Maximum call stack size exceeded").
 */
export function objStmListingItself(cycle = false): Buffer {
  const objstm = objectStream([[3, PAGE]]);
  const other = objectStream([[6, '<< /Type /Annot /Subtype /Text >>']]);
  return xrefStreamPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, objstm],
      [5, other],
    ],
    cycle
      ? [
          [3, 4, 0],
          [4, 5, 0],
          [5, 4, 0],
        ]
      : [
          [3, 4, 0],
          [4, 4, 0],
        ],
  );
}

/** The page tree's root says `/Count 1000000000` over one page. */
export function hugeCount(count = 1_000_000_000): Buffer {
  return classicPdf([
    [1, CATALOG],
    [2, `<< /Type /Pages /Kids [3 0 R] /Count ${count} >>`],
    [3, PAGE],
  ]);
}

/** A page tree whose stream (an object stream) has a /Length of `length` (negative, fractional, past the end). */
export function badStreamLength(length: string): Buffer {
  const objstm = objectStream([[3, PAGE]]);
  const bad = objstm.toString('latin1').replace(/\/Length \d+ >>/, `/Length ${length} >>`);
  return xrefStreamPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, Buffer.from(bad, 'latin1')],
    ],
    [[3, 4, 0]],
  );
}

/** A compressed entry whose index doesn't fit two bytes (a writer's Buffer RangeError), read after reconstruction. */
export function wideObjectStreamIndex(): Buffer {
  // 70,000 one-character objects before the page: the page's index is 70,000.
  const count = 70_000;
  const objects: Array<[number, string]> = [];
  for (let i = 0; i < count; i++) objects.push([100 + i, '0']);
  objects.push([3, PAGE]);
  const objstm = objectStream(objects);
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, objstm],
    ],
    { size: 5, startxref: 3 },
  );
}

/** A one-page classic file for tests that need an innocent baseline. */
export function plainPdf(): Buffer {
  return classicPdf([
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
  ]);
}

/*
 * Signing on top of a damaged file (the fuzz campaign of seed 20251124): after a reconstruction
 * Sello writes a complete cross-reference section that every reader then takes as the truth,
 * so it must number its objects, list object streams and choose between definitions as other
 * readers would; through an intact chain it appends to a section other readers must read too.
 */

/** A page whose /Contents is `contents`, for files that refer to objects they never define. */
function pageWithContents(contents: string): string {
  return `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${contents} >>`;
}

/**
 * A damaged file whose page has /Contents [4 0 R 5 0 R] and whose content stream 4 has
 * /Length `length` 0 R (6 by default); 5 and 6 are never defined (null, §7.3.10). Numbered from
 * its highest `N G obj`, the signature dictionary became the page's second content stream and
 * the field the first one's /Length (mutants 83 and 2404).
 */
export function danglingReferences(length = 6): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, pageWithContents('[4 0 R 5 0 R]')],
      [4, stream('', Buffer.from('0 0 m 100 100 l S'), `${length} 0 R`)],
    ],
    { size: 5, startxref: 7 },
  );
}

/** An intact file (/Size 4) whose page's /Contents is 4 0 R, a number at /Size: never defined. */
export function danglingReferenceInChain(): Buffer {
  return classicPdf([
    [1, CATALOG],
    [2, PAGES],
    [3, pageWithContents('4 0 R')],
  ]);
}

/** A damaged file where object stream 4 (holding annotation 5) is replaced by a later `4 0 obj` dictionary. */
export function objectStreamRedefined(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [4, objectStream([[5, '<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] >>']])],
      [4, '<< /Producer (otra definición del 4) >>'],
    ],
    { size: 5, startxref: 7 },
  );
}

/** A damaged file whose object stream 4 holds annotation 5: its complete table after signing has a compressed entry. */
export function annotationInObjectStream(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [4, objectStream([[5, '<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] >>']])],
    ],
    { size: 5, startxref: 7 },
  );
}

/**
 * A damaged file whose object stream 4 (holding annotation 6) has /Length 5 0 R, and stream 5
 * has /Length 4 0 R (mutants 371, 1956): Sello ends both at `endstream`, qpdf resolves the
 * lengths, loops, and drops the object stream ("supposed object stream 4 is not a stream").
 */
export function objectStreamLengthCycle(): Buffer {
  const objstm = objectStream([[6, '<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] >>']]);
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [4, Buffer.from(objstm.toString('latin1').replace(/\/Length \d+ >>/, '/Length 5 0 R >>'), 'latin1')],
      [5, stream('', Buffer.from('0123456789'), '4 0 R')],
    ],
    { size: 6, startxref: 7 },
  );
}

/**
 * An object stream whose /N (2,147,483,649 by default, as in mutant 1862) is more than the one
 * pair its header holds: qpdf ("expected integer in object stream header") and poppler drop the
 * whole stream. It holds the page (`page`) or an annotation nobody needs; the file is damaged
 * (rebuilt) or read through an intact xref stream (`chain`).
 */
export function objectStreamHugeN(holds: 'page' | 'annotation', chain: boolean, n = 2_147_483_649): Buffer {
  const body = holds === 'page' ? PAGE : '<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] >>';
  const num = holds === 'page' ? 3 : 5;
  const objstm = Buffer.from(objectStream([[num, body]]).toString('latin1').replace('/N 1 ', `/N ${n} `), 'latin1');
  const direct: Array<[number, Body]> = [
    [1, CATALOG],
    [2, PAGES],
    ...(holds === 'page' ? [] : ([[3, PAGE]] as Array<[number, Body]>)),
    [4, objstm],
  ];
  if (chain) return xrefStreamPdf(direct, [[num, 4, 0]]);
  return classicPdf(direct, { size: 5, startxref: 7 });
}

/**
 * A damaged file that defines page 3 twice: directly (300×400), then later inside object
 * stream 4 (100×100). qpdf, rebuilding, takes the direct one (it never reads object streams
 * then); so must Sello.
 */
export function directThenCompressedPage(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>'],
      [4, objectStream([[3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>']])],
    ],
    { size: 5, startxref: 7 },
  );
}

/**
 * A damaged file whose page 3 is defined in object stream 4 (300×400) and again in a later
 * object stream 5 (100×100), as a later incremental update would: the later one counts.
 */
export function pageInTwoObjectStreams(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [4, objectStream([[3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] >>']])],
      [5, objectStream([[3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>']])],
    ],
    { size: 6, startxref: 7 },
  );
}

/**
 * A damaged file where stream 4's /Length (9999) is wrong and no `endstream` follows until the
 * end; its `endobj` does, then page 3 is defined again with /Rotate 90, then a good stream 5.
 * Ending stream 4 at the next `endstream` hid the new page; qpdf ends it at `endobj` and finds it.
 */
export function objectsAfterWrongLength(): Buffer {
  return classicPdf(
    [
      [1, CATALOG],
      [2, PAGES],
      [3, PAGE],
      [4, '<< /Length 9999 >>\nstream\n0 0 m 100 100 l S\n'],
      [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate 90 >>'],
      [5, stream('', Buffer.from('q Q'))],
    ],
    { size: 6, startxref: 7 },
  );
}

/** A good xref stream file (the page direct) broken in one way qpdf and poppler refuse. */
export function strictXrefStream(damage: 'unknown row type' | 'no /Size' | 'huge generation' | 'negative /Length'): Buffer {
  const objects: Array<[number, Body]> = [
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
    [5, '<< /Producer (Sello) >>'],
  ];
  if (damage === 'unknown row type') return xrefStreamPdf(objects, [], '', { rows: (rows) => void (rows[4] = { type: 7, f2: 0, f3: 0 }) });
  if (damage === 'no /Size') return xrefStreamPdf(objects, [], '', { dict: (d) => d.replace(/\/Size (\d+)/, '/Index [0 $1]') });
  if (damage === 'negative /Length') return xrefStreamPdf(objects, [], '', { length: '-2147483649' });
  return xrefStreamPdf(objects, [], '', { generation: '9007199254740992' });
}

/** A good classic file broken in one way qpdf refuses (its section then can't be appended to). */
export function strictClassicTable(damage: 'no /Size' | '/Prev not an integer' | 'generation mismatch'): Buffer {
  const objects: Array<[number, Body]> = [
    [1, CATALOG],
    [2, PAGES],
    [3, PAGE],
  ];
  if (damage === 'no /Size') return classicPdf(objects, { trailer: '<< /Root 1 0 R >>' });
  if (damage === '/Prev not an integer') return classicPdf(objects, { trailer: '<< /Size 4 /Root 1 0 R /Prev /Ninguno >>' });
  // The table says generation 0; the object's header says 1.
  return Buffer.from(classicPdf(objects).toString('latin1').replace('\n3 0 obj', '\n3 1 obj'), 'latin1');
}

/** A page tree whose only kid is not a page: an ExtGState (`typed`) or a content stream. */
export function pageTreeLeafNotAPage(kind: 'typed' | 'stream'): Buffer {
  return classicPdf([
    [1, CATALOG],
    [2, PAGES],
    [3, kind === 'typed' ? '<< /Type /ExtGState /CA 1 >>' : stream('', Buffer.from('0 0 m 100 100 l S'))],
  ]);
}

/** A one-page file whose page lacks /Type (readers take the leaf for a page). */
export function untypedPage(): Buffer {
  return classicPdf([
    [1, CATALOG],
    [2, PAGES],
    [3, '<< /Parent 2 0 R /MediaBox [0 0 595 842] >>'],
  ]);
}

/**
 * A file whose last object lost its end, and with it its `endstream`/`endobj` (a chunk removed
 * up to the table, which stays: the table's offsets no longer hold, so readers rebuild it): a
 * content stream cut in its data, or a string never closed. Whatever is appended to the file
 * is read as the rest of that object (fuzz seed 777, mutant 2701: qpdf recovered the cut
 * stream's length up to the `endstream` of Sello's appearance stream).
 */
export function truncatedInside(kind: 'stream' | 'string'): Buffer {
  const last: Body = kind === 'stream' ? stream('', Buffer.from('BT /F1 12 Tf 72 712 Td (Hola) Tj ET', 'latin1')) : '(Una cadena que nunca se cierra: fin)';
  const whole = classicPdf([
    [1, CATALOG],
    [2, PAGES],
    [3, pageWithContents('4 0 R')],
    [4, kind === 'stream' ? last : stream('', Buffer.from('BT ET', 'latin1'))],
    ...(kind === 'string' ? ([[5, last]] as Array<[number, Body]>) : []),
  ]);
  const text = whole.toString('latin1');
  const from = kind === 'stream' ? text.lastIndexOf('(Hola)') : text.lastIndexOf(': fin)');
  return Buffer.concat([whole.subarray(0, from), whole.subarray(text.lastIndexOf('xref\n0 '))]);
}

/**
 * Runs `fn` on `pdf` and returns the SelloError it throws, checking its code, its Spanish text
 * and that the input was left untouched.
 */
export async function refusal(pdf: Buffer, fn: (pdf: Buffer) => unknown, code: string): Promise<SelloError> {
  const copy = Buffer.from(pdf);
  let caught: unknown;
  try {
    await fn(pdf);
  } catch (err) {
    caught = err;
  }
  expect(pdf.equals(copy)).toBe(true);
  expect(caught).toBeInstanceOf(SelloError);
  const err = caught as SelloError;
  expect(err.code).toBe(code);
  expect(err.message).toMatch(/El PDF/);
  return err;
}
