/**
 * Text for the RIDE: what the standard Helvetica of a PDF can print, wrapped to a width, and the
 * amounts and dates written the way Ecuadorian invoices write them. Pure functions, no PDF here
 * beyond measuring with a font.
 */
import type { PDFFont } from 'pdf-lib';
import { formatUnits } from './decimal.js';

/** The character a glyph the font lacks is printed as: visible, so nobody mistakes the text for whole. */
export const REPLACEMENT = '?';

const charsets = new WeakMap<PDFFont, ReadonlySet<number>>();

function charsetOf(font: PDFFont): ReadonlySet<number> {
  let set = charsets.get(font);
  if (!set) {
    set = new Set(font.getCharacterSet());
    charsets.set(font, set);
  }
  return set;
}

/**
 * `text` as one printable line for `font`: composed (NFC, so "n" + U+0303 prints as "ñ"), every
 * whitespace (tab, newline, no-break space) a plain space, and every character the font's
 * encoding lacks (WinAnsi for the standard fonts: "Ω", emoji, control characters) replaced by
 * {@link REPLACEMENT}. pdf-lib throws on such characters; the RIDE must print anyway.
 */
export function toPrintable(text: string, font: PDFFont): string {
  const supported = charsetOf(font);
  let out = '';
  for (const ch of text.normalize('NFC')) {
    if (/\s/u.test(ch)) out += ' ';
    else out += supported.has(ch.codePointAt(0)!) ? ch : REPLACEMENT;
  }
  return out;
}

/**
 * `text` broken into lines no wider than `width` at `size`: the text's own line breaks kept,
 * words kept whole where they fit, a word longer than a line cut between characters. Always at
 * least one line ('' for empty text).
 */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  const fits = (s: string): boolean => font.widthOfTextAtSize(s, size) <= width;
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    const words = toPrintable(paragraph, font).split(' ').filter((w) => w !== '');
    let line = '';
    for (const word of words) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      // A word wider than the line: cut it where it stops fitting (at least one character a line).
      let rest = [...word];
      while (!fits(rest.join(''))) {
        // The longest prefix that fits (binary search: widths only grow with length).
        let lo = 1;
        let hi = rest.length - 1;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (fits(rest.slice(0, mid).join(''))) lo = mid;
          else hi = mid - 1;
        }
        lines.push(rest.slice(0, lo).join(''));
        rest = rest.slice(lo);
      }
      line = rest.join('');
    }
    lines.push(line);
  }
  // Trailing empty paragraphs add nothing but height.
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The largest size from `size` down to `minSize` (in half points) at which `text` fits `width`
 * on one line, or `minSize` when none does (the caller then wraps).
 */
export function fittingSize(text: string, font: PDFFont, size: number, width: number, minSize: number): number {
  const printable = toPrintable(text, font);
  let s = size;
  while (s > minSize && font.widthOfTextAtSize(printable, s) > width) s -= 0.5;
  return Math.max(s, minSize);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal string as the RIDE prints amounts, quantities and prices: at least two decimals, no
 * trailing zeros beyond them, never through a float ("3" → "3.00", "1.500000" → "1.50",
 * "0.123400" → "0.1234"). Anything else is printed as it came.
 */
export function formatDecimal(value: string): string {
  const m = DECIMAL.exec(value.trim());
  if (!m) return value;
  const decimals = (m[3] ?? '').replace(/0+$/, '').padEnd(2, '0');
  return `${m[1]}${m[2]}.${decimals}`;
}

/** A rate in percent without useless decimals: "15" → "15", "15.00" → "15", "12.50" → "12.5". */
export function formatRate(value: string): string {
  const m = DECIMAL.exec(value.trim());
  if (!m) return value;
  const decimals = (m[3] ?? '').replace(/0+$/, '');
  return decimals === '' ? `${m[1]}${m[2]}` : `${m[1]}${m[2]}.${decimals}`;
}

/**
 * The exact sum of decimal strings, with two decimals or more when an addend has more
 * (["1.10", "2.255"] → "3.355"); strings that are not decimals count as zero.
 */
export function sumDecimals(values: readonly string[]): string {
  const parsed = values.map((v) => DECIMAL.exec(v.trim())).filter((m): m is RegExpExecArray => m !== null);
  const scale = Math.max(2, ...parsed.map((m) => (m[3] ?? '').length));
  let total = 0n;
  for (const m of parsed) {
    const units = BigInt(`${m[2]}${(m[3] ?? '').padEnd(scale, '0')}`);
    total += m[1] === '-' ? -units : units;
  }
  return formatUnits(total, scale);
}

/** "2025-03-14" → "14/03/2025", as the SRI writes dates; anything else as it came. */
export function formatDate(isoDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : isoDate;
}

/** Continental Ecuador's offset from UTC (no daylight saving): the SRI's clock. */
const ECUADOR_OFFSET_MINUTES = -5 * 60;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

export interface PrintedTime {
  /** "dd/mm/aaaa hh:mm:ss" in Ecuador's time, or the input when it is no ISO date-time. */
  text: string;
  /** The instant (a date-time without offset is read as Ecuador's time), when it parses. */
  instant?: Date;
}

/**
 * An ISO date-time (the SRI's `fechaAutorizacion`, "2025-03-14T10:15:30-05:00") as the RIDE
 * prints it, in Ecuador's time whatever the offset it was written with, and the instant it names.
 * Never depends on the machine's time zone.
 */
export function formatDateTime(iso: string): PrintedTime {
  const m = DATE_TIME.exec(iso.trim());
  if (!m) return { text: iso };
  const [, y, mo, d, h, mi, s, zone] = m;
  let offset = ECUADOR_OFFSET_MINUTES;
  if (zone === 'Z') offset = 0;
  else if (zone) {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    offset = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
  }
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? '0'));
  if (Number.isNaN(wall)) return { text: iso };
  const instant = new Date(wall - offset * 60_000);
  const ec = new Date(instant.getTime() + ECUADOR_OFFSET_MINUTES * 60_000);
  const p = (n: number): string => String(n).padStart(2, '0');
  const text = `${p(ec.getUTCDate())}/${p(ec.getUTCMonth() + 1)}/${ec.getUTCFullYear()} ${p(ec.getUTCHours())}:${p(ec.getUTCMinutes())}:${p(ec.getUTCSeconds())}`;
  return { text, instant };
}

/** Midnight in Ecuador of an issue date "YYYY-MM-DD", or null when it is no such date. */
export function startOfDayInEcuador(isoDate: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - ECUADOR_OFFSET_MINUTES * 60_000;
  return Number.isNaN(ms) ? null : new Date(ms);
}
