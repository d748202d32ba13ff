/**
 * Positions of a keyword in a buffer, found once and searched many times. Recovering a damaged
 * file (§7.5.4 readers' recovery) and reading streams whose /Length is wrong (§7.3.8.1) both
 * ask "where is the next `endstream` after here?"; asking `indexOf` each time costs the rest of
 * the file per question when the keyword is missing, which a hostile file turns into quadratic
 * time. One native `indexOf` pass and a binary search per question keep it linear.
 */

/**
 * Every position of `keyword` in `buf`, ascending (overlapping matches are not possible for these
 * keywords). The search is for the first byte (memchr, native) and the rest is compared here:
 * Buffer#indexOf with a string costs a JS wrapper per call, which a file made of nothing but
 * the keyword turns into most of the time.
 */
export function positionsOf(buf: Buffer, keyword: string): number[] {
  const needle = Buffer.from(keyword, 'latin1');
  const first = needle[0]!;
  const last = buf.length - needle.length;
  const out: number[] = [];
  for (let at = buf.indexOf(first, 0); at >= 0 && at <= last; at = buf.indexOf(first, at + 1)) {
    let k = 1;
    while (k < needle.length && buf[at + k] === needle[k]) k++;
    if (k === needle.length) {
      out.push(at);
      at += needle.length - 1;
    }
  }
  return out;
}

/** The index of the first element of ascending `sorted` that is ≥ `from` (`sorted.length` when none). */
export function lowerBound(sorted: readonly number[], from: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The positions of `endstream` in one buffer, computed on first use. */
export class EndstreamIndex {
  private positions: number[] | undefined;

  constructor(private readonly buf: Buffer) {}

  /** The first `endstream` at or after `from`, or -1. */
  after(from: number): number {
    this.positions ??= positionsOf(this.buf, 'endstream');
    const i = lowerBound(this.positions, from);
    return i < this.positions.length ? this.positions[i]! : -1;
  }
}
