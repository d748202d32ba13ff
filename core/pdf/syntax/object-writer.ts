/**
 * Writing PDF objects (PDF 32000-1:2008 §7.3) back as bytes. Strings written as latin1 JS
 * strings keep one char per byte, so binary string content survives untouched.
 */
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from './pdf-objects.js';

/**
 * §7.3.3: PDF has no exponent notation; reals are written in plain decimal. An integer read from
 * a file may be beyond 1e21, where String() switches to exponents: written in full digits.
 */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '0';
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
  if (Math.abs(n) < 1e-6) return '0';
  const s = String(n);
  if (!s.includes('e')) return s;
  return n.toFixed(10).replace(/0+$/, '').replace(/\.$/, '');
}

const PLAIN_NAME = /^[!"$&'*-.0-;=?-Z\\^-z|~]*$/;

/** §7.3.5: bytes outside the regular printable range are written as `#xx`. */
export function formatName(n: string): string {
  // Nearly every name needs no escape: written as is (a name of many MB read from a file too).
  if (PLAIN_NAME.test(n)) return '/' + n;
  let out = '/';
  for (let i = 0; i < n.length; i++) {
    const c = n.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x23 || '()<>[]{}/%'.includes(n[i]!)) out += '#' + c.toString(16).padStart(2, '0');
    else out += n[i];
  }
  return out;
}

/**
 * §7.3.4.2: a literal string with `\`, `(` and `)` escaped (and CR, which a reader would turn
 * into LF), or a hex string if it was one. Escaped into one Buffer sized once: a string of many
 * MB read from a file (even one made of nothing but parentheses) is written back in linear time.
 */
export function formatString(s: PdfString): string {
  if (s.hex) return '<' + s.bytes.toString('hex') + '>';
  const b = s.bytes;
  let extra = 0;
  for (let i = 0; i < b.length; i++) if (needsEscape(b[i]!)) extra++;
  if (extra === 0) return '(' + b.toString('latin1') + ')';
  const out = Buffer.allocUnsafe(b.length + extra + 2);
  let o = 0;
  out[o++] = 0x28;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (needsEscape(c)) {
      out[o++] = 0x5c;
      out[o++] = c === 0x0d ? 0x72 /* r */ : c;
    } else out[o++] = c;
  }
  out[o++] = 0x29;
  return out.toString('latin1');
}

function needsEscape(c: number): boolean {
  return c === 0x28 || c === 0x29 || c === 0x5c || c === 0x0d;
}

/** The bytes of a direct object (streams are written by `writeIndirect`). Returned as latin1. */
export function formatObject(obj: PdfObject): string {
  if (obj === null) return 'null';
  if (typeof obj === 'boolean') return obj ? 'true' : 'false';
  if (typeof obj === 'number') return formatNumber(obj);
  if (obj instanceof PdfName) return formatName(obj.name);
  if (obj instanceof PdfString) return formatString(obj);
  if (obj instanceof PdfRef) return `${obj.num} ${obj.gen} R`;
  if (Array.isArray(obj)) return '[' + obj.map(formatObject).join(' ') + ']';
  if (obj instanceof PdfDict) {
    let out = '<<';
    for (const [k, v] of obj.map) out += formatName(k) + ' ' + formatObject(v);
    return out + '>>';
  }
  if (obj instanceof PdfStream) throw new Error('un stream solo puede escribirse como objeto indirecto');
  throw new Error('objeto PDF desconocido');
}

/** `N G obj … endobj` (§7.3.10), with the stream body for streams (§7.3.8, /Length set here). */
export function writeIndirect(num: number, gen: number, obj: PdfObject): Buffer {
  if (obj instanceof PdfStream) {
    const dict = obj.dict.clone().set('Length', obj.data.length);
    return Buffer.concat([
      Buffer.from(`${num} ${gen} obj\n${formatObject(dict)}\nstream\n`, 'latin1'),
      obj.data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    ]);
  }
  return Buffer.from(`${num} ${gen} obj\n${formatObject(obj)}\nendobj\n`, 'latin1');
}
