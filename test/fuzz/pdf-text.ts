/**
 * Editing a PDF as latin1 text for the PDF-aware mutators. The point of `replaceKeepingOffsets`
 * is that a mutant whose cross-reference offsets still hold reaches the reader's normal path
 * (xref → object → value) instead of always falling into reconstruction: the replacement is
 * padded with spaces when shorter, and when longer, redundant whitespace after it is dropped.
 */
import type { Rng } from './prng.js';

export interface Span {
  start: number;
  end: number;
}

export const toText = (pdf: Buffer): string => pdf.toString('latin1');
export const toBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/** Every match of `re` (which must be global), at most `max` of them. */
export function matchesOf(text: string, re: RegExp, max = 20_000): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m && out.length < max; m = re.exec(text)) {
    out.push(m);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

/** A random match, or null: mutators that find nothing to change do not apply. */
export function pickMatch(rng: Rng, text: string, re: RegExp): RegExpExecArray | null {
  const all = matchesOf(text, re);
  return all.length > 0 ? rng.pick(all) : null;
}

const isWhite = (c: string | undefined): boolean => c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0';
const isDelimiter = (c: string | undefined): boolean => c !== undefined && '/[]<>()'.includes(c);

/**
 * `text` with `span` replaced by `replacement`, keeping every later byte at its offset when it
 * can: padding with spaces, or dropping whitespace that no token needs (next to a delimiter or
 * another white-space) within the rest of the object. Stops before stream data, whose bytes are
 * counted by /Length.
 */
export function replaceKeepingOffsets(text: string, span: Span, replacement: string): string {
  const oldLength = span.end - span.start;
  if (replacement.length <= oldLength) return text.slice(0, span.start) + replacement.padEnd(oldLength, ' ') + text.slice(span.end);
  let excess = replacement.length - oldLength;
  const rest = text.slice(span.end, span.end + 512);
  let kept = '';
  let i = 0;
  for (; i < rest.length && excess > 0; i++) {
    if (rest.startsWith('stream', i) || rest.startsWith('endobj', i)) break;
    const c = rest[i];
    const prev = i === 0 ? replacement[replacement.length - 1] : kept[kept.length - 1];
    if (isWhite(c) && (isWhite(prev) || isDelimiter(prev) || isDelimiter(rest[i + 1]))) excess--;
    else kept += c;
  }
  // Not enough slack: the later offsets move, and the reader has to recover (also worth testing).
  return text.slice(0, span.start) + replacement + kept + rest.slice(i) + text.slice(span.end + rest.length);
}

/** Inserts `insertion` at `at` (every later offset moves). */
export function insertAt(text: string, at: number, insertion: string): string {
  return text.slice(0, at) + insertion + text.slice(at);
}

/** Where an indirect object starts (`N G obj`), to insert whole objects between others. */
export function objectBoundaries(text: string): number[] {
  return matchesOf(text, /(?<=[\r\n])\d+\s+\d+\s+obj\b/g).map((m) => m.index);
}

export interface TailInfo {
  /** The last `startxref` value. */
  startxref: number;
  /** The last /Size. */
  size: number;
  /** The last `/Root N G R`, as written. */
  root: string;
  rootNum: number;
}

/** What an appended update needs from the file's end; null for files too damaged to extend. */
export function tailInfo(text: string): TailInfo | null {
  const sx = [...text.slice(-4096).matchAll(/startxref\s+(\d+)/g)].pop();
  const size = [...text.matchAll(/\/Size\s+(\d+)/g)].pop();
  const root = [...text.matchAll(/\/Root\s+((\d+)\s+\d+\s+R)/g)].pop();
  if (!sx || !size || !root) return null;
  // An earlier mutation may have left absurd numbers: an update built on them is not
  // expressible (xref rows hold 32-bit fields), and the absurd value is already the test.
  if (Number(size[1]) > 2 ** 31 || Number(sx[1]) > text.length || Number(root[2]) > 2 ** 31) return null;
  return { startxref: Number(sx[1]), size: Number(size[1]), root: root[1]!, rootNum: Number(root[2]) };
}
