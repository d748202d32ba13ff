/**
 * WinAnsiEncoding (PDF 32000-1:2008 Annex D.2, Windows code page 1252) for the stamp's text,
 * so that Spanish names (á é í ó ú ñ Ñ ü) print right with the standard Helvetica font,
 * which needs no embedding (§9.6.2.2, the 14 standard Type 1 fonts).
 */
import { HELVETICA_WIDTHS_FROM_32, WINANSI_SPECIALS } from './helvetica-metrics.js';

const QUESTION = 0x3f;

/**
 * Encodes `text` as WinAnsi bytes. Characters without a WinAnsi code lose their accent when
 * that gives one (`ă` → `a`), else become `?`; line breaks and tabs become spaces.
 *
 * @example
 *   toWinAnsi('Ñandú') // <d1 61 6e 64 fa>
 */
export function toWinAnsi(text: string): Buffer {
  const out: number[] = [];
  for (const ch of text.normalize('NFC')) out.push(codeOf(ch));
  return Buffer.from(out);
}

function codeOf(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x09 || cp === 0x0a || cp === 0x0d) return 0x20;
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  const special = WINANSI_SPECIALS.get(cp);
  if (special !== undefined) return special;
  const base = ch.normalize('NFD')[0];
  if (base && base !== ch) {
    const b = base.codePointAt(0)!;
    if (b >= 0x20 && b <= 0x7e) return b;
  }
  return QUESTION;
}

/** Width in points of WinAnsi `bytes` set in Helvetica at `fontSize` (Helvetica AFM widths). */
export function helveticaWidth(bytes: Buffer, fontSize: number): number {
  let units = 0;
  for (const b of bytes) units += b >= 32 ? (HELVETICA_WIDTHS_FROM_32[b - 32] ?? 0) : 0;
  return (units * fontSize) / 1000;
}

/**
 * Breaks `text` into lines no wider than `maxWidth` points: at spaces when possible, inside a
 * word only when the word alone is too wide.
 */
export function wrapText(text: string, fontSize: number, maxWidth: number): Buffer[] {
  const words = text.trim().split(/\s+/).filter(Boolean).map((w) => toWinAnsi(w));
  const space = helveticaWidth(Buffer.from(' '), fontSize);
  const lines: Buffer[] = [];
  let cur: Buffer | undefined;
  for (let word of words) {
    if (cur && helveticaWidth(cur, fontSize) + space + helveticaWidth(word, fontSize) <= maxWidth) {
      cur = Buffer.concat([cur, Buffer.from(' '), word]);
      continue;
    }
    if (cur) lines.push(cur);
    cur = undefined;
    while (helveticaWidth(word, fontSize) > maxWidth && word.length > 1) {
      let n = word.length - 1;
      while (n > 1 && helveticaWidth(word.subarray(0, n), fontSize) > maxWidth) n--;
      lines.push(word.subarray(0, n));
      word = word.subarray(n);
    }
    cur = word;
  }
  if (cur) lines.push(cur);
  return lines;
}
