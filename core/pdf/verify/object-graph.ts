/**
 * Comparing and walking PDF objects across two views of a file, for the analysis of what a
 * later revision changed (./diff-analysis.ts). Everything here is bounded by the objects the
 * views hold: walks keep a visited set, and nesting is bounded by the parser (§7.3).
 */
import { BrokenXrefError } from '../syntax/cross-reference.js';
import { PdfSyntaxError } from '../syntax/object-parser.js';
import type { PdfDocument } from '../syntax/pdf-document.js';
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString, type PdfObject } from '../syntax/pdf-objects.js';

/** Structural equality of two direct values; references compare by number and generation. */
export function sameValue(a: PdfObject | undefined, b: PdfObject | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof PdfName) return b instanceof PdfName && a.name === b.name;
  if (a instanceof PdfString) return b instanceof PdfString && a.bytes.equals(b.bytes);
  if (a instanceof PdfRef) return b instanceof PdfRef && a.num === b.num && a.gen === b.gen;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a instanceof PdfStream) return b instanceof PdfStream && a.data.equals(b.data) && sameValue(a.dict, b.dict);
  if (a instanceof PdfDict) {
    if (!(b instanceof PdfDict) || a.map.size !== b.map.size) return false;
    for (const [k, v] of a.map) if (!b.has(k) || !sameValue(v, b.get(k))) return false;
    return true;
  }
  return false;
}

/** Keys, other than `ignored`, whose values differ between two dictionaries. */
export function differingKeys(a: PdfDict, b: PdfDict, ignored: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const k of new Set([...a.map.keys(), ...b.map.keys()])) {
    if (!ignored.has(k) && !sameValue(a.get(k), b.get(k))) out.push(k);
  }
  return out;
}

/**
 * Object numbers reachable from `value` through objects for which `follow` holds (the objects
 * a later revision created), `value`'s own reference included when it is one. Objects that
 * existed before are not entered: what they reach was already there (pyHanko's
 * `collect_dependencies(since_revision)`).
 */
export function reachableThrough(doc: PdfDocument, value: PdfObject | undefined, follow: (num: number) => boolean): Set<number> {
  const out = new Set<number>();
  const stack: Array<PdfObject | undefined> = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof PdfRef) {
      if (out.has(v.num) || !follow(v.num)) continue;
      out.add(v.num);
      stack.push(doc.getObject(v.num));
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v instanceof PdfDict) stack.push(...v.map.values());
    else if (v instanceof PdfStream) stack.push(...v.dict.map.values());
  }
  return out;
}

/** Where an object is referenced from: the referring object (or the trailer) and the key path. */
export interface Usage {
  from: number | 'trailer';
  /** Dictionary keys from the referring object down to the reference, array positions left out: `Annots`, `AP.N.Off`. */
  path: string;
}

/**
 * Every place the objects `targets` are referenced from in `doc` (its trailer and each of its
 * objects). Reads the whole document once: the price of knowing that an object a later
 * revision rewrote, or a new object it defines, is not also used where that change would
 * alter the signed content.
 */
export function usagesIn(doc: PdfDocument, targets: ReadonlySet<number>): Map<number, Usage[]> {
  const found = new Map<number, Usage[]>();
  if (targets.size === 0) return found;
  const record = (from: Usage['from'], value: PdfObject | undefined): void => {
    const stack: Array<[PdfObject | undefined, string]> = [[value, '']];
    while (stack.length) {
      const [v, path] = stack.pop()!;
      if (v instanceof PdfRef) {
        if (targets.has(v.num)) {
          const list = found.get(v.num) ?? [];
          list.push({ from, path });
          found.set(v.num, list);
        }
      } else if (Array.isArray(v)) for (const x of v) stack.push([x, path]);
      else if (v instanceof PdfDict || v instanceof PdfStream) {
        const d = v instanceof PdfStream ? v.dict : v;
        for (const [k, x] of d.map) stack.push([x, path ? `${path}.${k}` : k]);
      }
    }
  };
  record('trailer', doc.trailer);
  for (const [num, e] of doc.xref.entries) {
    if (e.kind === 'free') continue;
    let value: PdfObject;
    try {
      value = doc.getObject(num);
    } catch (err) {
      // An unreadable object references nothing a reader could follow; running out of the
      // read budget is not that, and must not leave the index silently incomplete.
      if (err instanceof BrokenXrefError || err instanceof PdfSyntaxError) continue;
      throw err;
    }
    // §7.5.8.2: an xref stream's dictionary is a trailer (its /Root, /Info, /Encrypt).
    record(value instanceof PdfStream && value.dict.name('Type') === 'XRef' ? 'trailer' : num, value);
  }
  return found;
}
