/**
 * The header of an object stream (PDF 32000-1:2008 §7.5.7): /N pairs `objNum offset` of
 * integers before /First, then the objects. One reading of it, shared by the document reader
 * (pdf-document.ts) and the reconstruction (reconstruct.ts), and as strict as the readers that
 * will read Sello's output: qpdf gives up on a whole object stream whose header holds fewer than
 * /N integer pairs ("expected integer in object stream header") and poppler on one whose /N is
 * not a positive integer, whose pairs are not integers or whose offsets go backwards. Reading
 * such a header leniently would let Sello sign objects, or write compressed entries, that no
 * other reader can reach (an /N of 2³¹+1 over a header of 115 pairs made qpdf lose the catalog).
 */
import type { ReadBudget } from './limits.js';
import { isCount } from './limits.js';
import { readInteger } from './object-parser.js';

export interface ObjectStreamHeader {
  /** Where the first object starts in the decoded data (/First). */
  first: number;
  /** The object number at each index (as written: not necessarily within ISO's bounds). */
  nums: number[];
  /** Each object's offset from /First. */
  offsets: number[];
}

/**
 * Poppler's ceiling on /N (Acrobat writes object streams of 100–200 objects): a header past it
 * is one no other reader reads.
 */
const MAX_OBJECTS = 1_000_000;

/**
 * The header of an object stream whose decoded data is `data`, with /N `n` and /First `first`
 * (already resolved); a problem, in Spanish, when it is not one every reader can use.
 */
export function readObjectStreamHeader(data: Buffer, n: unknown, first: unknown, budget: ReadBudget): ObjectStreamHeader | string {
  if (!isCount(n) || n < 1 || n > MAX_OBJECTS) return '/N inválido';
  if (!isCount(first) || first > data.length) return '/First inválido';
  const head = data.subarray(0, first);
  const nums: number[] = [];
  const offsets: number[] = [];
  let p = 0;
  for (let i = 0; i < n; i++) {
    budget.spend();
    const num = readInteger(head, p);
    const off = num && readInteger(head, num.end);
    // Fewer pairs than /N: the header is short (or /N too large), and readers drop the stream.
    if (!num || !off) return `la cabecera tiene ${i} pares y /N dice ${n}`;
    if (i > 0 && off.value < offsets[i - 1]!) return 'los desplazamientos de la cabecera retroceden';
    nums.push(num.value);
    offsets.push(off.value);
    p = off.end;
  }
  return { first, nums, offsets };
}
