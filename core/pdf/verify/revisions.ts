/**
 * The revisions of a file (PDF 32000-1:2008 §7.5.6 incremental updates): each one ends with
 * `%%EOF`, and the document "as of" a revision is the file cut there, read through the
 * cross-reference chain that starts at that revision's `startxref`. That is exactly what a
 * signer hashed, so it is what a signature vouches for.
 *
 * Built on the syntax room's public reader (`readCrossReference`, `PdfDocument`): a revision is
 * read through its own chain only, never reconstructed, since a signed revision that can only
 * be found by repairing it is not what the signer saw.
 */
import type { CrossReference, XrefEntry } from '../syntax/cross-reference.js';
import { readCrossReference } from '../syntax/cross-reference.js';
import { PdfDocument } from '../syntax/pdf-document.js';

/** More revisions after one signature than any signing workflow writes: beyond, no analysis. */
export const MAX_LATER_REVISIONS = 256;

/**
 * Comparisons of a later revision with a signed one, for all the signatures of one file. Each
 * reads the objects both define; a file built with thousands of signatures and revisions would
 * otherwise make one verification quadratic. Beyond, the changes are reported unanalysed.
 */
export const MAX_REVISION_REVIEWS = 2048;

/** The document as it was at the revision that ends at `end` (throws when it can't be read so). */
export function openRevision(bytes: Buffer, end: number): PdfDocument {
  const view = end === bytes.length ? bytes : bytes.subarray(0, end);
  return new PdfDocument(view, readCrossReference(view));
}

/**
 * Where each revision after offset `from` ends: just after each `%%EOF` and its end-of-line.
 * Returns undefined past `MAX_LATER_REVISIONS`.
 */
export function revisionEndsAfter(bytes: Buffer, from: number): number[] | undefined {
  const ends: number[] = [];
  for (let p = bytes.indexOf('%%EOF', from, 'latin1'); p >= 0; p = bytes.indexOf('%%EOF', p + 5, 'latin1')) {
    let end = p + 5;
    if (bytes[end] === 0x0d) end++;
    if (bytes[end] === 0x0a) end++;
    if (ends.length >= MAX_LATER_REVISIONS) return undefined;
    ends.push(end);
  }
  return ends;
}

export interface RevisionChanges {
  /** Objects the newer view defines differently (new, moved, or inside a rewritten object stream). */
  defined: Set<number>;
  /** Objects the older view had that the newer one frees or drops. */
  freed: Set<number>;
}

/**
 * What changed between two views of the same file, from their cross-reference entries alone:
 * an object whose entry is unchanged is the same bytes (or the same slot of an object stream
 * that was itself not rewritten), so it needs no reading.
 */
export function changedObjects(older: CrossReference, newer: CrossReference): RevisionChanges {
  const defined = new Set<number>();
  const freed = new Set<number>();
  for (const [num, e] of newer.entries) {
    const o = older.entries.get(num);
    if (e.kind === 'free') {
      if (o && o.kind !== 'free') freed.add(num);
    } else if (!sameEntry(o, e)) defined.add(num);
  }
  for (const [num, o] of older.entries) if (o.kind !== 'free' && !newer.entries.has(num)) freed.add(num);
  // §7.5.7: an object in an object stream changes when its stream is rewritten, whatever its entry says.
  for (const [num, e] of newer.entries) if (e.kind === 'compressed' && defined.has(e.stream)) defined.add(num);
  return { defined, freed };
}

function sameEntry(a: XrefEntry | undefined, b: XrefEntry): boolean {
  if (!a || a.kind !== b.kind) return false;
  if (a.kind === 'offset' && b.kind === 'offset') return a.offset === b.offset && a.gen === b.gen;
  if (a.kind === 'compressed' && b.kind === 'compressed') return a.stream === b.stream && a.index === b.index;
  return true;
}

/** True when `num` is an object of `xref` (present and not free). */
export function isDefined(xref: CrossReference, num: number): boolean {
  const e = xref.entries.get(num);
  return e !== undefined && e.kind !== 'free';
}
