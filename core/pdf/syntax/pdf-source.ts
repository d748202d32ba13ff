/**
 * The bytes of one PDF file, held as one Buffer or as consecutive parts (an original and the
 * incremental update appended to it, §7.5.6), read in place. Offsets are absolute, counted over
 * the whole file; each parse happens inside the one part that holds its start, which is all a
 * file written by Sello needs: its update begins after the original's last byte, so no object,
 * xref section or trailer spans two parts. Reading back a signed 100 MB output therefore
 * never joins (and doubles) it.
 */
import { EndstreamIndex } from './keyword-index.js';

/** One part: its bytes and the absolute offset of its first byte. */
export interface SourcePart {
  readonly buf: Buffer;
  readonly base: number;
  /** `endstream` positions in `buf`, found on first use. */
  readonly endstreams: EndstreamIndex;
}

export class PdfSource {
  readonly length: number;
  private readonly parts: SourcePart[];
  private joined: Buffer | undefined;

  constructor(parts: Buffer | readonly Buffer[]) {
    const list = Buffer.isBuffer(parts) ? [parts] : parts.filter((p) => p.length > 0);
    if (list.length === 0) list.push(Buffer.alloc(0));
    let base = 0;
    this.parts = list.map((buf) => {
      const part = { buf, base, endstreams: new EndstreamIndex(buf) };
      base += buf.length;
      return part;
    });
    this.length = base;
  }

  /** `src` itself, or a source over one Buffer. */
  static of(src: Buffer | PdfSource): PdfSource {
    return src instanceof PdfSource ? src : new PdfSource(src);
  }

  /** The first part (where `%PDF-` and the first revision are). */
  get first(): SourcePart {
    return this.parts[0]!;
  }

  /** The part that holds absolute offset `at`, or undefined outside the file. */
  partAt(at: number): SourcePart | undefined {
    if (!Number.isSafeInteger(at) || at < 0 || at >= this.length) return undefined;
    // A file has one part, or two (original + update): a scan from the end is the binary search.
    for (let i = this.parts.length - 1; i >= 0; i--) if (at >= this.parts[i]!.base) return this.parts[i];
    return undefined;
  }

  /** The last occurrence of `keyword` (absolute offset) and its part, searching parts from the end. */
  lastIndexOf(keyword: string): { at: number; part: SourcePart } | undefined {
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const part = this.parts[i]!;
      const at = part.buf.lastIndexOf(keyword, part.buf.length, 'latin1');
      if (at >= 0) return { at: part.base + at, part };
    }
    return undefined;
  }

  /**
   * The whole file as one Buffer: the Buffer itself for a single part; for several, a joined
   * copy made once (only for callers that really need one buffer; the reader never does).
   */
  toBuffer(): Buffer {
    if (this.parts.length === 1) return this.parts[0]!.buf;
    this.joined ??= Buffer.concat(this.parts.map((p) => p.buf));
    return this.joined;
  }
}
