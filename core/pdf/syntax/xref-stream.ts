/**
 * Decoding a cross-reference stream (PDF 32000-1:2008 §7.5.8.2–3): rows of /W field widths
 * over the /Index ranges (default [0 /Size]).
 *
 * Nothing is sized or looped from the dictionary's numbers alone: each width is 0 … 8 bytes and
 * a row is at least one byte, the /Index ranges are within the object-number bound, and the rows
 * they claim must be in the decoded data (a 497-byte stream with `/W [0 0 0] /Index [0 100000000]`
 * claims a hundred million rows of nothing). A dictionary that breaks any of these, or a row with
 * an object number or generation out of bounds, makes the section broken (reconstruction).
 *
 * Sello appends its update after this section and points /Prev at it, so a section counts as
 * readable only if the strictest common readers read it too: qpdf and poppler reject a section
 * without an integer /Size (Table 17 requires it, /Index or not), with an empty /Index, with a
 * type field wider than 4 bytes (poppler) or with a row of a type other than 0, 1 and 2. ISO
 * reads such a row as null (§7.5.8.3), but a reader that rejects the section rebuilds the table
 * by scanning, and poppler's rebuild finds no trailer in a file of xref streams: the signature
 * would vanish for it. Sello rebuilds instead, and writes a complete section of its own.
 */
import { PDF_LIMITS, type ReadBudget, isCount, isGeneration, isObjectNumber, isPdfSize } from './limits.js';
import type { PdfStream } from './pdf-objects.js';
import { decodeStream } from './stream-filters.js';
import { BrokenXrefError, type XrefEntry } from './xref-entry.js';

/** The entries of `stream`, offsets made absolute with `headerOffset`. */
export function decodeXrefStream(stream: PdfStream, headerOffset: number, budget: ReadBudget): Map<number, XrefEntry> {
  const dict = stream.dict;
  const w = dict.get('W');
  if (!Array.isArray(w) || w.length < 3) throw new BrokenXrefError('/W inválido');
  const widths = w.slice(0, 3);
  if (!widths.every((x): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= PDF_LIMITS.maxXrefFieldWidth)) {
    throw new BrokenXrefError('/W inválido');
  }
  const [w0, w1, w2] = widths as [number, number, number];
  const rowLen = w0 + w1 + w2;
  if (rowLen === 0) throw new BrokenXrefError('/W inválido: filas de 0 bytes');
  if (w0 > MAX_TYPE_WIDTH) throw new BrokenXrefError('/W inválido: campo de tipo de más de 4 bytes');
  const size = dict.get('Size');
  if (!isPdfSize(size)) throw new BrokenXrefError('/Size inválido o ausente en el stream de referencias');

  const index = readIndex(dict.get('Index'), size);
  const data = decodeStream(stream, budget);
  let claimed = 0;
  for (let k = 1; k < index.length; k += 2) claimed += index[k]!;
  if (claimed > Math.floor(data.length / rowLen)) throw new BrokenXrefError(`/Index pide ${claimed} filas y los datos tienen ${Math.floor(data.length / rowLen)}`);

  const entries = new Map<number, XrefEntry>();
  const field = (pos: number, width: number, dflt: number): number => {
    if (width === 0) return dflt;
    let v = 0;
    for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
    return v;
  };
  let row = 0;
  for (let k = 0; k + 1 < index.length; k += 2) {
    const first = index[k]!;
    const count = index[k + 1]!;
    for (let i = 0; i < count; i++, row++) {
      budget.spend();
      const pos = row * rowLen;
      const type = field(pos, w0, 1);
      const f2 = field(pos + w0, w1, 0);
      const f3 = field(pos + w0 + w1, w2, 0);
      const num = first + i;
      if (entries.has(num)) continue;
      if (type === 0) entries.set(num, { kind: 'free' });
      else if (type === 1) {
        if (!isGeneration(f3)) throw new BrokenXrefError(`generación fuera de rango en la entrada ${num}`);
        entries.set(num, { kind: 'offset', offset: f2 + headerOffset, gen: f3 });
      } else if (type === 2) {
        // An object stream is an object (its number bounded), and it can't hold more objects than exist.
        if (!isObjectNumber(f2) || !isObjectNumber(f3)) throw new BrokenXrefError(`entrada comprimida fuera de rango (${num})`);
        entries.set(num, { kind: 'compressed', stream: f2, index: f3 });
      } else {
        throw new BrokenXrefError(`tipo de entrada ${type} desconocido en la entrada ${num}`);
      }
    }
  }
  return entries;
}

/** Poppler reads the type field into an int: wider than 4 bytes, it rejects the section. */
const MAX_TYPE_WIDTH = 4;

/** /Index as pairs `first count`, each range within the object-number bound; [0 /Size] by default. */
function readIndex(indexObj: unknown, size: number): number[] {
  if (indexObj === undefined) return [0, size];
  if (!Array.isArray(indexObj) || indexObj.length === 0 || indexObj.length % 2 !== 0) throw new BrokenXrefError('/Index inválido');
  const out: number[] = [];
  for (let k = 0; k < indexObj.length; k += 2) {
    const first: unknown = indexObj[k];
    const count: unknown = indexObj[k + 1];
    if (!isCount(first) || !isCount(count) || !isObjectNumber(first) || (count > 0 && !isObjectNumber(first + count - 1))) {
      throw new BrokenXrefError('/Index inválido');
    }
    out.push(first, count);
  }
  return out;
}
