/**
 * Finding a page in the page tree (PDF 32000-1:2008 §7.7.3) without loading the others: the
 * /Count of each intermediate node says which kid holds page N, so only the path from the root
 * to the page is read. Attributes inheritable per §7.7.3.4 (Table 30: MediaBox, CropBox,
 * Rotate, Resources) are collected along that path.
 */
import { SelloError } from '../../errors/index.js';
import { BrokenXrefError } from './cross-reference.js';
import { PDF_LIMITS } from './limits.js';
import type { PdfDocument } from './pdf-document.js';
import { PdfDict, PdfName, PdfRef, type PdfObject } from './pdf-objects.js';

export type Box = [number, number, number, number];

export interface PageInfo {
  /** 0-based index. */
  index: number;
  ref: PdfRef;
  dict: PdfDict;
  mediaBox: Box;
  /** The crop box, defaulting to the media box and clipped to it (§14.11.2). */
  cropBox: Box;
  /** 0, 90, 180 or 270 (§7.7.3.3 Table 30: a multiple of 90, clockwise when displayed). */
  rotate: 0 | 90 | 180 | 270;
}

/**
 * The number of pages: the root node's /Count when it is plausible, otherwise the pages found by
 * walking the tree. Plausible means a non-negative integer no larger than the number of objects
 * in the file (each page is an object): a /Count of 1e9 on a one-page file is not believed, and
 * nothing is ever sized or looped from it.
 */
export function pageCount(doc: PdfDocument): number {
  const root = pagesRoot(doc);
  const n = doc.number(root.dict.get('Count'));
  if (n !== undefined && Number.isInteger(n) && n >= 0 && n <= doc.xref.entries.size) return n;
  return listPages(doc).length;
}

function pagesRoot(doc: PdfDocument): { ref: PdfRef; dict: PdfDict } {
  const ref = doc.catalog().dict.get('Pages');
  const dict = ref instanceof PdfRef ? treeNode(doc, ref) : undefined;
  if (!(ref instanceof PdfRef) || !dict) throw new BrokenXrefError('catálogo sin /Pages');
  return { ref, dict };
}

/**
 * A node of the page tree: a dictionary (§7.7.3.2–3), not a stream's, whose /Type, when there
 * is one, is /Pages or /Page. A damaged file can leave an ExtGState or a content stream where a
 * page was; taking it for a page would write /Annots into it (the signer rewrites the page).
 */
function treeNode(doc: PdfDocument, ref: PdfRef): PdfDict | undefined {
  const v = doc.resolve(ref);
  if (!(v instanceof PdfDict)) return undefined;
  const type = v.get('Type');
  return type === undefined || (type instanceof PdfName && (type.name === 'Pages' || type.name === 'Page')) ? v : undefined;
}

interface Inherited {
  mediaBox?: PdfObject;
  cropBox?: PdfObject;
  rotate?: PdfObject;
}

/**
 * Page `pageNumber` (1-based, or 'last'). Throws `page_out_of_range` when there is no such page.
 *
 * @example
 *   const page = findPage(doc, 'last'); // page.cropBox, page.rotate
 */
export function findPage(doc: PdfDocument, pageNumber: number | 'last'): PageInfo {
  const count = pageCount(doc);
  const index = pageNumber === 'last' ? count - 1 : pageNumber - 1;
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new SelloError('page_out_of_range', {
      detail: `El PDF tiene ${count} página${count === 1 ? '' : 's'} y se pidió la ${pageNumber === 'last' ? 'última' : pageNumber}. Indique una página entre 1 y ${count} (o "last").`,
    });
  }
  let node = pagesRoot(doc);
  const inh: Inherited = {};
  let skip = index;
  const visited = new Set<number>();
  for (let depth = 0; depth < PDF_LIMITS.maxPageTreeDepth; depth++) {
    if (visited.has(node.ref.num)) break;
    visited.add(node.ref.num);
    collect(node.dict, inh);
    const kids = doc.array(node.dict.get('Kids'));
    if (!kids) {
      // A /Pages node without /Kids is an empty branch, not a page.
      if (skip === 0 && node.dict.name('Type') !== 'Pages') return toPageInfo(doc, index, node, inh);
      break;
    }
    let next: { ref: PdfRef; dict: PdfDict } | undefined;
    for (const kid of kids) {
      const dict = kid instanceof PdfRef ? treeNode(doc, kid) : undefined;
      if (!(kid instanceof PdfRef) || !dict) continue;
      const isLeaf = dict.name('Type') === 'Page' || !dict.has('Kids');
      const n = isLeaf ? 1 : (doc.number(dict.get('Count')) ?? 0);
      if (skip < n) {
        next = { ref: kid, dict };
        break;
      }
      skip -= n;
    }
    if (!next) break;
    node = next;
  }
  throw new BrokenXrefError('árbol de páginas inconsistente');
}

/** Every page, in order (used by `inspectPdf`, never on the signing path). */
export function listPages(doc: PdfDocument): PageInfo[] {
  const out: PageInfo[] = [];
  const visited = new Set<number>();
  const walk = (node: { ref: PdfRef; dict: PdfDict }, inh: Inherited, depth: number): void => {
    if (depth > PDF_LIMITS.maxPageTreeDepth || visited.has(node.ref.num)) return;
    visited.add(node.ref.num);
    const here = { ...inh };
    collect(node.dict, here);
    const kids = doc.array(node.dict.get('Kids'));
    if (!kids) {
      if (node.dict.name('Type') !== 'Pages') out.push(toPageInfo(doc, out.length, node, here));
      return;
    }
    for (const kid of kids) {
      const dict = kid instanceof PdfRef ? treeNode(doc, kid) : undefined;
      if (kid instanceof PdfRef && dict) walk({ ref: kid, dict }, here, depth + 1);
    }
  };
  walk(pagesRoot(doc), {}, 0);
  return out;
}

function collect(dict: PdfDict, inh: Inherited): void {
  if (dict.has('MediaBox')) inh.mediaBox = dict.get('MediaBox');
  if (dict.has('CropBox')) inh.cropBox = dict.get('CropBox');
  if (dict.has('Rotate')) inh.rotate = dict.get('Rotate');
}

function toPageInfo(doc: PdfDocument, index: number, node: { ref: PdfRef; dict: PdfDict }, inh: Inherited): PageInfo {
  // §7.7.3.3: MediaBox is required; US Letter is what readers assume when it is missing.
  const mediaBox = toBox(doc, inh.mediaBox) ?? [0, 0, 612, 792];
  const crop = toBox(doc, inh.cropBox);
  const cropBox: Box = crop ? intersect(crop, mediaBox) : mediaBox;
  const r = doc.number(inh.rotate) ?? 0;
  const rotate = ((((Math.round(r / 90) * 90) % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  return { index, ref: node.ref, dict: node.dict, mediaBox, cropBox, rotate };
}

/** A rectangle (§7.9.5) normalised to [llx lly urx ury]. */
export function toBox(doc: PdfDocument, obj: PdfObject | undefined): Box | undefined {
  const arr = doc.array(obj);
  if (!arr || arr.length < 4) return undefined;
  const n = arr.slice(0, 4).map((v) => doc.number(v));
  if (n.some((v) => v === undefined)) return undefined;
  const [a, b, c, d] = n as [number, number, number, number];
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}

function intersect(a: Box, b: Box): Box {
  const r: Box = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  // A crop box that misses the media box entirely is an error in the file; fall back to the media box.
  return r[2] > r[0] && r[3] > r[1] ? r : b;
}
