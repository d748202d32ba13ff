/**
 * Where a signature sits in the file, checked byte by byte (PDF 32000-1:2008 §12.8.1 and
 * ISO 32000-2 §12.8.1 "the ByteRange shall cover the entire file, including the signature
 * dictionary but excluding the /Contents value"; ETSI EN 319 142-1 §5.4.2 / §6.3 for PAdES).
 *
 * A digest that matches says nothing about *which* bytes were signed: a genuine signature can be
 * moved into another file whose ranges happen to contain the signed bytes (the "signature
 * wrapping" and "universal signature forgery" classes of Mladenov et al., "1 Trillion Dollar
 * Refund", USENIX Security 2019). So, for the signature dictionary the document shows:
 * - /ByteRange is exactly [0 a b c], two ranges from the first byte, 0 < a < b, b + c within
 *   the file, and b + c is the end of a revision (`%%EOF`, then at most an end-of-line);
 * - the gap [a, b) is exactly a hex string `<…>` of hex digits;
 * - that gap is the /Contents value of *this* dictionary, read from the object itself, and the
 *   whole `N G obj … endobj` lies inside [0, b + c): everything of the dictionary but its
 *   /Contents is signed (its /ByteRange included).
 */
import { PdfSyntaxError, parseObject, readFromDigitsOnly, readInteger, readRegular, skipWhitespace } from '../syntax/object-parser.js';
import type { PdfDocument } from '../syntax/pdf-document.js';
import type { PdfSource } from '../syntax/pdf-source.js';
import { PdfName, PdfRef, PdfString, type PdfDict, type PdfObject } from '../syntax/pdf-objects.js';

export type ByteRange = [number, number, number, number];

export type LayoutCheck =
  | { ok: true; byteRange: ByteRange; /** b + c: the end of the signed revision. */ signedEnd: number }
  | { ok: false; problem: string };

/**
 * Checks the layout of the signature whose dictionary is `sigValue` (the field's raw /V) in
 * `doc`. `problem` is Spanish, for the report.
 *
 * @example
 *   const layout = checkSignatureLayout(doc, field.get('V'), sigDict);
 *   if (layout.ok) readRevision(pdf, layout.signedEnd); // the document as it was signed
 */
export function checkSignatureLayout(doc: PdfDocument, sigValue: PdfObject | undefined, sig: PdfDict): LayoutCheck {
  const src = doc.source;
  const br = readByteRange(sig);
  if (!br) return fail('/ByteRange no tiene exactamente dos tramos de enteros (cuatro números)');
  const [start, a, b, c] = br;
  if (start !== 0) return fail('/ByteRange no empieza en el primer byte del archivo');
  if (!(a > 0 && b > a && c > 0)) return fail('/ByteRange tiene tramos vacíos o desordenados');
  const signedEnd = b + c;
  if (signedEnd > src.length) return fail('/ByteRange se sale del archivo');
  if (!endsRevision(slice(src, Math.max(0, signedEnd - 7), signedEnd))) return fail('lo firmado no termina donde termina una revisión del PDF (%%EOF)');
  const gap = slice(src, a, b);
  if (!isHexGap(gap)) return fail('el hueco sin firmar del /ByteRange no es una cadena hexadecimal <…>');

  // ISO 32000-2 §12.8.1: /V of a signature field shall be an indirect reference.
  if (!(sigValue instanceof PdfRef)) return fail('el diccionario de firma no es un objeto indirecto');
  const entry = doc.xref.entries.get(sigValue.num);
  if (entry?.kind !== 'offset') return fail('el diccionario de firma no está escrito en el archivo como objeto propio');
  let extent: ObjectExtent;
  try {
    extent = dictionaryExtent(doc, entry.offset, sigValue.num);
  } catch (err) {
    return fail(`el diccionario de firma no se puede leer en su lugar (${err instanceof Error ? err.message : String(err)})`);
  }
  if (extent.start < 0 || extent.end > signedEnd) return fail('el diccionario de firma está fuera de los bytes firmados');
  if (extent.contents.length !== 1) return fail('el diccionario de firma no tiene exactamente un /Contents');
  const [cs, ce] = extent.contents[0]!;
  if (cs !== a || ce !== b) return fail('el /Contents del diccionario de firma no es el hueco sin firmar del /ByteRange');
  // The dictionary the reader resolved was parsed at this very offset, so its /Contents is the
  // gap's text decoded: read from hex digits only, and half as long as the gap's text, it was
  // the whole gap, and the gap holds hex digits and nothing else.
  const contents = sig.get('Contents');
  if (!(contents instanceof PdfString) || contents.bytes.length !== (b - a - 2) / 2) return fail('el /Contents leído no es el del hueco sin firmar');
  if (!readFromDigitsOnly(contents)) return fail('el hueco sin firmar del /ByteRange no es una cadena hexadecimal <…>');
  return { ok: true, byteRange: br, signedEnd };
}

function fail(problem: string): LayoutCheck {
  return { ok: false, problem };
}

/**
 * /ByteRange as four non-negative integers written in the dictionary itself, or undefined. An
 * indirect array or number would be an object that a later revision could redefine without
 * touching the signed bytes.
 */
export function readByteRange(sig: PdfDict): ByteRange | undefined {
  const arr = sig.get('ByteRange');
  if (!Array.isArray(arr) || arr.length !== 4) return undefined;
  if (!arr.every((x): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0)) return undefined;
  return [arr[0]!, arr[1]!, arr[2]!, arr[3]!];
}

/** Bytes [start, end) of the file: a view when one part holds them (always, for Sello's own output). */
function slice(src: PdfSource, start: number, end: number): Buffer {
  const part = src.partAt(start);
  if (part && end - part.base <= part.buf.length) return part.buf.subarray(start - part.base, end - part.base);
  return src.toBuffer().subarray(start, end);
}

/** `tail` (the last bytes of a revision) ends with `%%EOF`, or with it and one end-of-line (§7.5.5). */
export function endsRevision(tail: Buffer): boolean {
  let p = tail.length;
  if (tail[p - 1] === 0x0a) p--;
  if (tail[p - 1] === 0x0d) p--;
  return p >= 5 && tail.toString('latin1', p - 5, p) === '%%EOF';
}

/**
 * `gap` has the shape of what a signer reserves (§12.8.1): `<`, an even number of characters,
 * `>`. That they are all hex digits is established where /Contents is read (below).
 */
function isHexGap(gap: Buffer): boolean {
  const n = gap.length;
  return gap[0] === 0x3c && gap[n - 1] === 0x3e && (n - 2) % 2 === 0 && n >= 4;
}

interface ObjectExtent {
  start: number;
  end: number;
  /** [start, end) of each /Contents value of the dictionary. */
  contents: Array<[number, number]>;
}

/**
 * The extent of `num G obj << … >> endobj` at `offset` and where its /Contents values are. The
 * dictionary is walked key by key (§7.3.7) so that the positions are those of this object's
 * own entries, not of a string that merely looks like one.
 */
function dictionaryExtent(doc: PdfDocument, offset: number, num: number): ObjectExtent {
  // Offsets inside the part that holds the object (an object never spans parts, pdf-source.ts).
  const part = doc.source.partAt(offset);
  if (!part) throw new PdfSyntaxError('fuera del archivo', offset);
  const bytes = part.buf;
  const base = part.base;
  const ext = extentIn(bytes, offset - base, num, (at) => parseObject(bytes, at, doc.budget));
  return { start: ext.start + base, end: ext.end + base, contents: ext.contents.map(([s, e]) => [s + base, e + base]) };
}

function extentIn(bytes: Buffer, offset: number, num: number, parse: (at: number) => ReturnType<typeof parseObject>): ObjectExtent {
  const n = readInteger(bytes, offset);
  const g = n && readInteger(bytes, n.end);
  if (!n || !g || n.value !== num) throw new PdfSyntaxError(`se esperaba "${num} G obj"`, offset);
  const kw = readRegular(bytes, skipWhitespace(bytes, g.end));
  if (kw.text !== 'obj') throw new PdfSyntaxError('se esperaba "obj"', kw.end);
  let p = skipWhitespace(bytes, kw.end);
  if (bytes[p] !== 0x3c || bytes[p + 1] !== 0x3c) throw new PdfSyntaxError('se esperaba un diccionario', p);
  p += 2;
  const contents: Array<[number, number]> = [];
  for (;;) {
    p = skipWhitespace(bytes, p);
    if (p >= bytes.length) throw new PdfSyntaxError('diccionario sin cerrar', p);
    if (bytes[p] === 0x3e && bytes[p + 1] === 0x3e) break;
    const key = parse(p);
    if (!(key.value instanceof PdfName)) throw new PdfSyntaxError('se esperaba un nombre como clave', p);
    const valueStart = skipWhitespace(bytes, key.end);
    // A hex /Contents is found by its closing `>` (§7.3.4.3): decoding kilobytes of signature
    // that the reader decodes anyway would double the cost of every read-back.
    const hexEnd = key.value.name === 'Contents' && bytes[valueStart] === 0x3c && bytes[valueStart + 1] !== 0x3c ? bytes.indexOf(0x3e, valueStart + 1) + 1 : 0;
    const valueEnd = hexEnd > 0 ? hexEnd : parse(valueStart).end;
    if (key.value.name === 'Contents') contents.push([valueStart, valueEnd]);
    p = valueEnd;
  }
  const after = readRegular(bytes, skipWhitespace(bytes, p + 2));
  // A signature dictionary is never a stream; `endobj` closes it (§7.3.10).
  if (after.text !== 'endobj') throw new PdfSyntaxError('falta "endobj"', p + 2);
  return { start: offset, end: after.end, contents };
}
