/**
 * Rules for the page tree after signing (PDF 32000-1:2008 §7.7.3, §12.5.2): the tree and every
 * page stay as signed except each page's /Annots, which may gain the widget of a new signature
 * (level `signatures`, pyHanko's `_walk_page_tree_annots`) or markup annotations such as
 * comments and highlights (level `annotations`, §12.5.6). Nothing is removed, and an
 * existing annotation may change only if it is used nowhere but as an annotation.
 */
import { PdfDict, PdfRef, type PdfObject } from '../syntax/pdf-objects.js';
import { approveAppearance, type FormReview } from './diff-form.js';
import { Level, type Review } from './diff-review.js';
import { differingKeys, sameValue } from './object-graph.js';
import type { Usage } from './object-graph.js';

const MAX_DEPTH = 64;

/**
 * Annotations a reviewer adds (§12.5.6.2 Table 170 markup annotations, and their pop-ups). Not
 * links, widgets, file attachments, sounds, movies, screens, 3D or rich media, nor watermarks
 * and printer's marks: those act, embed content or belong to the page's production.
 */
const MARKUP = new Set(['Text', 'FreeText', 'Line', 'Square', 'Circle', 'Polygon', 'PolyLine', 'Highlight', 'Underline', 'Squiggly', 'StrikeOut', 'Caret', 'Ink', 'Stamp', 'Redact', 'Popup']);

/** A comment-like annotation that runs nothing (§12.6.2: /A and /AA are actions). */
function isMarkup(annot: PdfDict, before?: PdfDict): boolean {
  const subtype = annot.name('Subtype');
  if (!subtype || !MARKUP.has(subtype)) return false;
  return ['A', 'AA'].every((k) => !annot.has(k) || (before !== undefined && sameValue(before.get(k), annot.get(k))));
}

export function reviewPages(r: Review, form: FormReview): void {
  const seen = new Set<number>();
  const walk = (bRaw: PdfObject | undefined, nRaw: PdfObject | undefined, depth: number): void => {
    if (!(nRaw instanceof PdfRef) || !(bRaw instanceof PdfRef) || nRaw.num !== bRaw.num) r.fail('la revisión posterior cambió el árbol de páginas');
    if (seen.has(nRaw.num) || depth > MAX_DEPTH) return;
    seen.add(nRaw.num);
    const b = r.baseDict(bRaw);
    const n = r.nextDict(nRaw);
    if (!b || !n) r.fail('la revisión posterior cambió el árbol de páginas');
    const bKids = r.base.array(b.get('Kids'));
    const isNode = b.name('Type') === 'Pages' || (bKids !== undefined && b.name('Type') !== 'Page');
    if (!isNode) {
      reviewPage(r, nRaw, b, n, form);
      return;
    }
    // §7.7.3.2: an intermediate node may only be written again unchanged.
    const keys = differingKeys(b, n, new Set());
    const nKids = r.next.array(n.get('Kids'));
    if (keys.length || !bKids || !nKids || !sameValue(bKids, nKids)) r.fail('la revisión posterior cambió el árbol de páginas (páginas agregadas, quitadas o movidas)');
    bKids.forEach((kid, i) => walk(kid, nKids[i], depth + 1));
  };
  walk(r.base.catalog().dict.get('Pages'), r.next.catalog().dict.get('Pages'), 0);
}

function reviewPage(r: Review, ref: PdfRef, b: PdfDict, n: PdfDict, form: FormReview): void {
  const keys = differingKeys(b, n, new Set(['Annots']));
  if (keys.length) r.fail(`la revisión posterior cambió el contenido de una página (${keys.map((k) => `/${k}`).join(', ')})`);
  const bList = r.base.array(b.get('Annots')) ?? [];
  const nList = r.next.array(n.get('Annots')) ?? [];
  const bRefs = new Set(bList.flatMap((a) => (a instanceof PdfRef ? [a.num] : [])));
  const nRefs = new Set(nList.flatMap((a) => (a instanceof PdfRef ? [a.num] : [])));
  // ISO 32000-2 §12.5.2: annotations are indirect; a direct one may only stay as it was.
  for (const a of nList) if (!(a instanceof PdfRef) && !bList.some((x) => sameValue(x, a))) r.fail('la revisión posterior agregó una anotación directa a una página');
  for (const num of bRefs) if (!nRefs.has(num)) r.fail('la revisión posterior quitó anotaciones de una página');
  let level: Level = Level.none;
  for (const num of nRefs) {
    if (bRefs.has(num)) {
      reviewChangedAnnotation(r, num, form);
      continue;
    }
    const sigLevel = form.signatureWidgets.get(num);
    if (sigLevel !== undefined) {
      level = Math.max(level, sigLevel) as Level;
      continue;
    }
    if (form.fieldWidgets.has(num)) r.fail('la revisión posterior agregó a una página un widget de un campo existente');
    const annot = r.next.getObject(num);
    if (!(annot instanceof PdfDict) || !isMarkup(annot)) r.fail('la revisión posterior agregó a una página algo que no es un comentario (una anotación con acciones, un vínculo, un archivo adjunto u otro objeto)');
    level = Level.annotations;
    if (r.isCreated(num)) r.approveCreated(new PdfRef(num, 0), Level.annotations);
    else reviewChangedAnnotation(r, num, form);
  }
  r.approve(ref.num, level);
  const nAnnots = n.get('Annots');
  r.approveSlot(b.get('Annots'), nAnnots, level, { from: ref.num, path: 'Annots' }, '/Annots');
}

/** Where an annotation may be referenced from besides /Annots (§12.5.6.2 /Popup, /IRT, /Parent; §14.7.4.3 OBJR /Obj). */
function annotationUse(u: Usage): boolean {
  const last = u.path.split('.').pop();
  return last === 'Annots' || last === 'Popup' || last === 'IRT' || last === 'Parent' || last === 'Obj';
}

/** §12.5: an existing markup annotation edited (text, colour, appearance…). */
function reviewChangedAnnotation(r: Review, num: number, form: FormReview): void {
  if (!r.changed.has(num) || form.fieldWidgets.has(num)) return;
  const b = r.base.getObject(num);
  const n = r.next.getObject(num);
  if (!(b instanceof PdfDict) || !(n instanceof PdfDict)) r.fail('la revisión posterior reescribió una anotación como otra cosa');
  if (b.name('Subtype') === 'Widget') return; // a widget belongs to a field: the form rule judges it
  if (n.name('Subtype') !== b.name('Subtype') || !isMarkup(n, b)) r.fail('la revisión posterior cambió una anotación que no es un comentario, o la convirtió en otra cosa');
  if (!r.onlyUsedAs(num, annotationUse)) r.fail('la revisión posterior cambió una anotación que la versión firmada también usa como otra cosa');
  r.approve(num, Level.annotations);
  r.approveCreated(n, Level.annotations);
  approveAppearance(r, b, n, new PdfRef(num, 0), Level.annotations);
}
