/**
 * What the revisions after a signature changed (ISO 32000-2 §12.8.2.2 and ETSI EN 319 142-1
 * §5.4: a signature vouches for the revision it signed; later incremental updates are fine only
 * if they add signatures, fill the form or annotate, as permitted). The method is pyHanko's
 * `sign/diff_analysis`: each later revision is compared with the signed one, object by object;
 * every object the revision defines must be explained by a rule (./diff-document.ts,
 * ./diff-form.ts, ./diff-pages.ts) or be an unused new object, and the highest level any
 * revision reaches is the verdict. Anything unexplained is `other`.
 *
 * Two guards pyHanko leaves as assumptions are checked here: a revision may not free objects of
 * the signed one, and may not define an object that the signed revision already referenced
 * without defining it (a dangling reference filled in later would change signed content
 * without rewriting any signed object).
 */
import { SelloError } from '../../errors/index.js';
import { BrokenXrefError } from '../syntax/cross-reference.js';
import { PdfSyntaxError } from '../syntax/object-parser.js';
import type { PdfDocument } from '../syntax/pdf-document.js';
import { PdfDict, PdfStream, type PdfObject } from '../syntax/pdf-objects.js';
import { reviewCatalog, reviewDss, reviewInfo, reviewObjectStreams } from './diff-document.js';
import { reviewForm } from './diff-form.js';
import { reviewPages } from './diff-pages.js';
import { Level, Review, SuspiciousChange } from './diff-review.js';
import { reachableThrough, sameValue, usagesIn, type Usage } from './object-graph.js';
import { changedObjects, type RevisionChanges } from './revisions.js';

export interface LaterChanges {
  level: Level;
  /** Why the level is `other`, in Spanish. */
  problem?: string;
}

/**
 * Compares each of `later` (the views of the revisions after the signed one, oldest first)
 * with `base` (the signed revision).
 *
 * @example
 *   analyseLaterRevisions(signedRevision, [revision2, revision3]) // { level: Level.signatures }
 */
export function analyseLaterRevisions(base: PdfDocument, later: readonly PdfDocument[]): LaterChanges {
  if (later.length === 0) return { level: Level.none };
  try {
    const steps = later.map((next, i) => ({
      next,
      defined: changedObjects((i === 0 ? base : later[i - 1]!).xref, next.xref).defined,
      sinceBase: changedObjects(base.xref, next.xref),
    }));
    const targets = new Set<number>();
    for (const s of steps) for (const n of s.sinceBase.defined) targets.add(n);
    const usages = usagesIn(base, targets);
    let level: Level = Level.none;
    for (const s of steps) {
      level = Math.max(level, reviewRevision(base, s.next, s.defined, s.sinceBase, usages)) as Level;
    }
    return { level };
  } catch (err) {
    return { level: Level.other, problem: reason(err) };
  }
}

function reason(err: unknown): string {
  if (err instanceof SuspiciousChange) return err.message;
  if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) return `una revisión posterior no se puede leer (${err.message})`;
  if (err instanceof SelloError) return `una revisión posterior no se pudo analizar (${err.message})`;
  throw err;
}

/** The level of one later revision; throws SuspiciousChange for what no rule allows. */
function reviewRevision(base: PdfDocument, next: PdfDocument, defined: ReadonlySet<number>, sinceBase: RevisionChanges, usages: ReadonlyMap<number, Usage[]>): Level {
  const r = new Review(base, next, sinceBase.defined, usages);
  if (sinceBase.freed.size) r.fail(`la revisión posterior borra objetos de la versión firmada (${list([...sinceBase.freed])})`);
  const mine = [...defined].filter((n) => sinceBase.defined.has(n));
  for (const n of mine) {
    if (r.isCreated(n) && usages.get(n)?.length) r.fail(`la revisión posterior define el objeto ${n}, que la versión firmada ya referenciaba sin definir`);
  }
  reviewCatalog(r);
  reviewInfo(r);
  reviewObjectStreams(r);
  reviewDss(r);
  reviewPages(r, reviewForm(r));

  // New objects nothing uses are not shown (pyHanko's `_find_orphans`): xref streams, object
  // streams, leftovers of some writers.
  const roots: PdfObject[] = [next.trailer];
  for (const n of sinceBase.defined) if (!r.isCreated(n)) roots.push(next.getObject(n));
  const used = reachableThrough(next, roots, (n) => r.isCreated(n));
  let level: Level = Level.none;
  const unexplained: number[] = [];
  for (const n of mine) {
    if (!r.isCreated(n) && sameValue(base.getObject(n), next.getObject(n))) continue; // written again, unchanged
    const approved = r.approved.get(n) ?? (r.isCreated(n) && !used.has(n) ? Level.none : undefined);
    if (approved === undefined) unexplained.push(n);
    else level = Math.max(level, approved) as Level;
  }
  if (unexplained.length) r.fail(`la revisión posterior cambia contenido que ninguna regla permite (${list(unexplained, next)})`);
  return level;
}

/** "objeto 12 (/Page), objeto 14 (stream)…" for the first few. */
function list(nums: number[], doc?: PdfDocument): string {
  const shown = nums.slice(0, 5).map((n) => {
    let v: PdfObject | undefined;
    try {
      v = doc?.getObject(n);
    } catch {
      v = undefined;
    }
    const kind = v instanceof PdfStream ? 'stream' : v instanceof PdfDict ? (v.name('Type') ? `/${v.name('Type')}` : 'diccionario') : undefined;
    return `objeto ${n}${kind ? ` (${kind})` : ''}`;
  });
  return `${shown.join(', ')}${nums.length > 5 ? ` y ${nums.length - 5} más` : ''}`;
}
