/**
 * Writing PDF objects (PDF 32000-1:2008 §7.3) back as bytes. Strings written as latin1 JS
 * strings keep one char per byte, so binary string content survives untouched.
 */
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from './pdf-objects.js';

/** §7.3.3: PDF has no exponent notation; reals are written in plain decimal. */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '0';
  if (Number.isInteger(n)) return String(n);
  if (Math.abs(n) < 1e-6) return '0';
  const s = String(n);
  if (!s.includes('e')) return s;
  return n.toFixed(10).replace(/0+$/, '').replace(/\.$/, '');
}

/** §7.3.5: bytes outside the regular printable range are written as `#xx`. */
export function formatName(n: string): string {
  let out = '/';
  for (let i = 0; i < n.length; i++) {
    const c = n.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x23 || '()<>[]{}/%'.includes(n[i]!)) out += '#' + c.toString(16).padStart(2, '0');
    else out += n[i];
  }
  return out;
}

/** §7.3.4.2: a literal string with `\`, `(` and `)` escaped, or a hex string if it was one. */
export function formatString(s: PdfString): string {
  if (s.hex) return '<' + s.bytes.toString('hex') + '>';
  let out = '(';
  for (const b of s.bytes) {
    if (b === 0x28 || b === 0x29 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b === 0x0d) out += '\\r';
    else out += String.fromCharCode(b);
  }
  return out + ')';
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
