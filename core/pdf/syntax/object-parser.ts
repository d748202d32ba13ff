/**
 * Lexer and parser for PDF objects (PDF 32000-1:2008 §7.2 lexical conventions, §7.3 objects).
 *
 * It reads from a Buffer at an offset and never copies the file: the signer only parses the
 * handful of objects it needs (trailer, catalog, page path, AcroForm), so cost follows the
 * update, not the document. Strings and names are scanned and copied as runs into a Buffer
 * (a string without escapes is a view of the file), never built byte by byte in a JS array;
 * each top-level parse charges the bytes it went through to the caller's `ReadBudget`.
 *
 * Tolerances real files need: comments anywhere whitespace may appear (§7.2.3), line breaks
 * inside `N G obj` headers and `N G R` references, `/Length` given indirectly or wrong (the
 * stream then ends at the next `endstream`).
 */
import type { EndstreamIndex } from './keyword-index.js';
import { PDF_LIMITS, ReadBudget, isGeneration, isObjectNumber } from './limits.js';
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from './pdf-objects.js';

/**
 * A syntax problem at a byte offset. Callers turn it into a SelloError (or into xref
 * reconstruction). It is control flow, caught inside the reader, and a hostile file can make the
 * recovery meet hundreds of thousands of them: it is made without a stack trace, which would
 * cost ten times the rest of the throw and say nothing the offset doesn't.
 */
export class PdfSyntaxError extends Error {
  readonly offset: number;
  /** How far the parse read before giving up (the end of the input for an unclosed string): the work to charge. */
  readonly reached: number;

  constructor(message: string, offset: number, reached = offset) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${message} (byte ${offset})`);
    Error.stackTraceLimit = limit;
    this.name = 'PdfSyntaxError';
    this.offset = offset;
    this.reached = reached;
  }
}

// §7.2.2 Table 1 (white-space) and Table 2 (delimiters).
const WHITESPACE = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WHITESPACE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;

export function isWhitespace(c: number | undefined): boolean {
  return c !== undefined && WHITESPACE[c] === 1;
}
export function isDelimiter(c: number | undefined): boolean {
  return c !== undefined && DELIMITER[c] === 1;
}
/** A regular character: neither white-space nor delimiter (§7.2.2). */
export function isRegular(c: number | undefined): boolean {
  return c !== undefined && WHITESPACE[c] === 0 && DELIMITER[c] === 0;
}

/** Skips white-space and comments (§7.2.3); returns the next offset with content. */
export function skipWhitespace(buf: Buffer, pos: number): number {
  const n = buf.length;
  while (pos < n) {
    const c = buf[pos]!;
    if (WHITESPACE[c] === 1) pos++;
    else if (c === 0x25 /* % */) {
      while (pos < n && buf[pos] !== 0x0a && buf[pos] !== 0x0d) pos++;
    } else break;
  }
  return pos;
}

/** Reads a run of regular characters (a number or a keyword). */
export function readRegular(buf: Buffer, pos: number): { text: string; end: number } {
  let end = pos;
  while (end < buf.length && isRegular(buf[end])) end++;
  return { text: buf.toString('latin1', pos, end), end };
}

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * Reads an unsigned integer token at `pos` (after white-space), or undefined when the token
 * there is anything else. Digits are accumulated directly (no string): xref tables are read
 * this way row by row. A token of many digits yields a large (imprecise) number, which every
 * caller checks against its bound.
 */
export function readInteger(buf: Buffer, pos: number): { value: number; end: number } | undefined {
  const p = skipWhitespace(buf, pos);
  let end = p;
  let value = 0;
  while (end < buf.length) {
    const c = buf[end]!;
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
    end++;
  }
  if (end === p || isRegular(buf[end])) return undefined;
  return { value, end };
}

/** Resolves an indirect `/Length` while parsing a stream; undefined when it can't. */
export type LengthResolver = (ref: PdfRef) => number | undefined;

export interface ParseResult<T = PdfObject> {
  value: T;
  end: number;
}

/**
 * Parses one direct object at `pos` (§7.3). References `N G R` are recognised by lookahead.
 * The bytes gone through are charged to `budget` (a fresh one for the buffer when omitted).
 */
export function parseObject(buf: Buffer, pos: number, budget: ReadBudget = new ReadBudget(buf.length)): ParseResult {
  let r: ParseResult;
  try {
    r = parseValue(buf, pos, 0);
  } catch (err) {
    // A failed parse may have scanned to the end (an unclosed string): charge what it read.
    budget.spend(Math.max(0, (err instanceof PdfSyntaxError ? err.reached : buf.length) - pos));
    throw err;
  }
  budget.spend(r.end - pos);
  return r;
}

function parseValue(buf: Buffer, pos: number, depth: number): ParseResult {
  if (depth > PDF_LIMITS.maxNesting) throw new PdfSyntaxError('objetos anidados demasiado profundo', pos);
  pos = skipWhitespace(buf, pos);
  if (pos >= buf.length) throw new PdfSyntaxError('fin de archivo inesperado', pos, buf.length);
  const c = buf[pos]!;
  switch (c) {
    case 0x2f /* / */:
      return parseName(buf, pos);
    case 0x28 /* ( */:
      return parseLiteralString(buf, pos);
    case 0x3c /* < */:
      if (buf[pos + 1] === 0x3c) return parseDict(buf, pos, depth);
      return parseHexString(buf, pos);
    case 0x5b /* [ */: {
      const arr: PdfObject[] = [];
      let p = pos + 1;
      for (;;) {
        p = skipWhitespace(buf, p);
        if (p >= buf.length) throw new PdfSyntaxError('arreglo sin cerrar', pos, buf.length);
        if (buf[p] === 0x5d /* ] */) return { value: arr, end: p + 1 };
        const item = parseValue(buf, p, depth + 1);
        arr.push(item.value);
        p = item.end;
      }
    }
    default:
      break;
  }
  const tok = readRegular(buf, pos);
  if (tok.text.length === 0) throw new PdfSyntaxError(`carácter inesperado 0x${c.toString(16)}`, pos);
  if (INT_RE.test(tok.text)) {
    // Lookahead for `N G R` (§7.3.10); white-space (including line breaks) may separate the parts.
    const gen = readInteger(buf, tok.end);
    if (gen && !tok.text.startsWith('+') && !tok.text.startsWith('-')) {
      const p = skipWhitespace(buf, gen.end);
      if (buf[p] === 0x52 /* R */ && !isRegular(buf[p + 1])) {
        return { value: new PdfRef(Number(tok.text), gen.value), end: p + 1 };
      }
    }
    return { value: Number(tok.text), end: tok.end };
  }
  if (NUM_RE.test(tok.text)) return { value: Number(tok.text), end: tok.end };
  if (tok.text === 'true') return { value: true, end: tok.end };
  if (tok.text === 'false') return { value: false, end: tok.end };
  if (tok.text === 'null') return { value: null, end: tok.end };
  // Some writers emit malformed reals such as `--5` or `0.0.1`; §7.3.3 readers may treat them as 0.
  if (/^[+-.\d]+$/.test(tok.text)) return { value: 0, end: tok.end };
  throw new PdfSyntaxError(`palabra inesperada "${tok.text.slice(0, 20)}"`, pos);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** §7.3.5: `#xx` escapes decode to a byte. */
function parseName(buf: Buffer, pos: number): ParseResult<PdfName> {
  let end = pos + 1;
  while (end < buf.length && isRegular(buf[end])) end++;
  const raw = buf.subarray(pos + 1, end);
  if (!raw.includes(0x23)) return { value: new PdfName(raw.toString('latin1')), end };
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b === 0x23 && i + 2 < raw.length && hexValue(raw[i + 1]!) >= 0 && hexValue(raw[i + 2]!) >= 0) {
      out[n++] = hexValue(raw[i + 1]!) * 16 + hexValue(raw[i + 2]!);
      i += 2;
    } else out[n++] = b;
  }
  return { value: new PdfName(out.toString('latin1', 0, n)), end };
}

/**
 * §7.3.4.2: balanced parentheses, backslash escapes, octal codes, line continuations, EOL → LF.
 * A first pass finds the closing parenthesis; a string with no backslash and no CR is then a
 * view of the file, any other is decoded into one Buffer, plain runs copied whole.
 */
function parseLiteralString(buf: Buffer, pos: number): ParseResult<PdfString> {
  const n = buf.length;
  let depth = 1;
  let plain = true;
  let close = -1;
  for (let i = pos + 1; i < n; i++) {
    const c = buf[i]!;
    if (c === 0x5c /* \ */) {
      plain = false;
      i++;
    } else if (c === 0x0d) plain = false;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) throw new PdfSyntaxError('cadena sin cerrar', pos, buf.length);
  if (plain) return { value: new PdfString(buf.subarray(pos + 1, close)), end: close + 1 };
  const out = Buffer.allocUnsafe(close - pos - 1);
  let o = 0;
  let i = pos + 1;
  while (i < close) {
    let run = i;
    while (run < close && buf[run] !== 0x5c && buf[run] !== 0x0d) run++;
    if (run > i) {
      o += buf.copy(out, o, i, run);
      i = run;
      if (i >= close) break;
    }
    if (buf[i] === 0x0d) {
      out[o++] = 0x0a;
      i += buf[i + 1] === 0x0a ? 2 : 1;
      continue;
    }
    // A backslash: the escape (§7.3.4.2 Table 3).
    const d = buf[i + 1]!;
    i += 2;
    switch (d) {
      case 0x6e: out[o++] = 0x0a; break; // n
      case 0x72: out[o++] = 0x0d; break; // r
      case 0x74: out[o++] = 0x09; break; // t
      case 0x62: out[o++] = 0x08; break; // b
      case 0x66: out[o++] = 0x0c; break; // f
      case 0x0d: if (buf[i] === 0x0a) i++; break; // line continuation
      case 0x0a: break;
      default:
        if (d >= 0x30 && d <= 0x37) {
          let v = d - 0x30;
          for (let k = 0; k < 2 && i < close && buf[i]! >= 0x30 && buf[i]! <= 0x37; k++) v = v * 8 + (buf[i++]! - 0x30);
          out[o++] = v & 0xff;
        } else out[o++] = d;
    }
  }
  return { value: new PdfString(out.subarray(0, o)), end: close + 1 };
}

/** Hex strings read from text that was hex digits and nothing else between `<` and `>`. */
const digitsOnly = new WeakSet<PdfString>();

/**
 * True when `s` was read from a hex string of digits only (no white-space, no implied final
 * 0): its text is then exactly `<` + 2 × its length digits + `>`. The verifier takes that for
 * a signature's unsigned gap instead of scanning tens of kilobytes again.
 */
export function readFromDigitsOnly(s: PdfString): boolean {
  return digitsOnly.has(s);
}

/** §7.3.4.3: white-space ignored, an odd final digit is followed by an implied 0. */
function parseHexString(buf: Buffer, pos: number): ParseResult<PdfString> {
  const end = buf.indexOf(0x3e /* > */, pos + 1);
  if (end < 0) throw new PdfSyntaxError('cadena hexadecimal sin cerrar', pos, buf.length);
  // Fast path for the common case (a signature's /Contents: tens of kilobytes of digits, no
  // white-space): Node's decoder stops at the first pair that is not two hex digits, so a
  // result of exactly half the length means every byte was a digit.
  const digits = end - pos - 1;
  if (digits % 2 === 0) {
    const fast = Buffer.from(buf.toString('latin1', pos + 1, end), 'hex');
    if (fast.length === digits / 2) {
      const value = new PdfString(fast, true);
      digitsOnly.add(value);
      return { value, end: end + 1 };
    }
  }
  const out = Buffer.allocUnsafe(Math.ceil((end - pos - 1) / 2));
  let n = 0;
  let hi = -1;
  for (let i = pos + 1; i < end; i++) {
    const v = hexValue(buf[i]!);
    if (v < 0) {
      if (isWhitespace(buf[i])) continue;
      throw new PdfSyntaxError('carácter no hexadecimal en cadena', i);
    }
    if (hi < 0) hi = v;
    else {
      out[n++] = hi * 16 + v;
      hi = -1;
    }
  }
  if (hi >= 0) out[n++] = hi * 16;
  return { value: new PdfString(out.subarray(0, n), true), end: end + 1 };
}

function parseDict(buf: Buffer, pos: number, depth: number): ParseResult<PdfDict> {
  const dict = new PdfDict();
  let p = pos + 2;
  for (;;) {
    p = skipWhitespace(buf, p);
    if (p >= buf.length) throw new PdfSyntaxError('diccionario sin cerrar', pos, buf.length);
    if (buf[p] === 0x3e && buf[p + 1] === 0x3e) return { value: dict, end: p + 2 };
    if (buf[p] !== 0x2f) throw new PdfSyntaxError('se esperaba un nombre como clave', p);
    const key = parseName(buf, p);
    const v = parseValue(buf, key.end, depth + 1);
    // §7.3.7: a null value is the same as an absent entry.
    if (v.value !== null) dict.set(key.value.name, v.value);
    p = v.end;
  }
}

/** The result of parsing `N G obj … endobj`. */
export interface IndirectObject {
  num: number;
  gen: number;
  value: PdfObject;
  /** Offset just after the object (after `endobj` when present). */
  end: number;
}

export interface IndirectParseOptions {
  /** Charged with the bytes parsed; a fresh budget for the buffer when omitted. */
  budget?: ReadBudget;
  /** Resolves an indirect /Length. */
  resolveLength?: LengthResolver;
  /** The `endstream` positions of `buf`, when the caller keeps them (a document reads many streams). */
  endstreams?: EndstreamIndex;
}

/**
 * Parses an indirect object at `pos` (§7.3.10), including a stream body (§7.3.8.1):
 * `stream` is followed by CRLF or LF (a lone CR is tolerated), the data is `/Length` bytes,
 * and when that length is missing, not a non-negative integer, beyond the buffer or not followed
 * by `endstream`, the data ends before the next `endstream`.
 */
export function parseIndirectObject(buf: Buffer, pos: number, opts: IndirectParseOptions = {}): IndirectObject {
  const budget = opts.budget ?? new ReadBudget(buf.length);
  const num = readInteger(buf, pos);
  const gen = num && readInteger(buf, num.end);
  if (!num || !gen) throw new PdfSyntaxError('se esperaba "N G obj"', pos);
  // Annex C: a header out of these bounds (`145 9007199254740992 obj`) is one qpdf and poppler
  // can't read; the object, and a section that is such an object, are broken.
  if (!isObjectNumber(num.value) || !isGeneration(gen.value)) throw new PdfSyntaxError('número de objeto o generación fuera de rango', pos);
  let p = skipWhitespace(buf, gen.end);
  const kw = readRegular(buf, p);
  if (kw.text !== 'obj') throw new PdfSyntaxError('se esperaba "obj"', p);
  const parsed = parseObject(buf, kw.end, budget);
  let value = parsed.value;
  p = skipWhitespace(buf, parsed.end);
  let kw2 = readRegular(buf, p);
  if (kw2.text === 'stream' && value instanceof PdfDict) {
    let start = kw2.end;
    if (buf[start] === 0x0d) start++;
    if (buf[start] === 0x0a) start++;
    const lenObj = value.get('Length');
    let length: number | undefined;
    if (typeof lenObj === 'number') length = lenObj;
    else if (lenObj instanceof PdfRef && opts.resolveLength) length = opts.resolveLength(lenObj);
    let dataEnd = -1;
    if (length !== undefined && Number.isSafeInteger(length) && length >= 0 && start + length <= buf.length) {
      const q = skipWhitespace(buf, start + length);
      if (buf.toString('latin1', q, q + 9) === 'endstream') {
        dataEnd = start + length;
        p = q + 9;
      }
    }
    if (dataEnd < 0) {
      // A precomputed index when the caller has one: a fresh indexOf per stream is quadratic
      // over a file of streams that all lack `endstream`.
      let es: number;
      if (opts.endstreams) es = opts.endstreams.after(start);
      else {
        es = buf.indexOf('endstream', start, 'latin1');
        budget.spend((es < 0 ? buf.length : es) - start);
      }
      // An index may cover more than `buf` (a bounded view of the same bytes): past its end is "none".
      if (es < 0 || es + 9 > buf.length) throw new PdfSyntaxError('stream sin "endstream"', start);
      dataEnd = es;
      // The EOL before `endstream` is not part of the data (§7.3.8.1).
      if (buf[dataEnd - 1] === 0x0a) dataEnd--;
      if (buf[dataEnd - 1] === 0x0d) dataEnd--;
      dataEnd = Math.max(dataEnd, start);
      p = es + 9;
    }
    value = new PdfStream(value, buf.subarray(start, dataEnd));
    p = skipWhitespace(buf, p);
    kw2 = readRegular(buf, p);
  }
  // `endobj` is missing in some damaged files; what was parsed is still the object.
  const end = kw2.text === 'endobj' ? kw2.end : p;
  return { num: num.value, gen: gen.value, value, end };
}
