/**
 * The state of one review: the signed revision (`base`), a later revision (`next`), which
 * objects changed between them, and the approvals the rules hand out. The model is pyHanko's
 * `sign/diff_analysis`: a later revision is acceptable only if every object it defines is
 * explained by a rule that knows what that object is for, at the level of change it amounts to.
 */
import type { PdfDocument } from '../syntax/pdf-document.js';
import { PdfDict, PdfRef, PdfStream, type PdfObject } from '../syntax/pdf-objects.js';
import { reachableThrough, type Usage } from './object-graph.js';
import { isDefined } from './revisions.js';

/**
 * Levels of change, ordered (pyHanko's ModificationLevel, plus a level for signatures proper).
 * `lta`: what PAdES long-term validation adds (DSS/VRI, document timestamps, an empty signature
 * field), allowed even under DocMDP P=1 as pyHanko allows it.
 */
export const Level = { none: 0, lta: 1, signatures: 2, formFill: 3, annotations: 4, other: 5 } as const;
export type Level = (typeof Level)[keyof typeof Level];

/** A change no rule allows; the message is Spanish, for the report. */
export class SuspiciousChange extends Error {
  override name = 'SuspiciousChange';
}

/** Where a value sits: the object holding it (or the trailer) and the key path inside that object. */
export interface Place {
  from: number | 'trailer';
  path: string;
}

/** The place of key `key` of a dictionary that is `raw` (a reference, or direct at `place`). */
export function keyPlace(raw: PdfObject | undefined, place: Place, key: string): Place {
  if (raw instanceof PdfRef) return { from: raw.num, path: key };
  return { from: place.from, path: place.path ? `${place.path}.${key}` : key };
}

export class Review {
  /** Object number → the lowest level at which a rule explained its change. */
  readonly approved = new Map<number, Level>();

  constructor(
    readonly base: PdfDocument,
    readonly next: PdfDocument,
    /** Objects whose definition in `next` differs from `base`. */
    readonly changed: ReadonlySet<number>,
    /** Where `base` references the changed objects (see object-graph.ts `usagesIn`). */
    private readonly usages: ReadonlyMap<number, Usage[]>,
  ) {}

  fail(message: string): never {
    throw new SuspiciousChange(message);
  }

  /** An object `next` has and `base` did not. */
  isCreated(num: number): boolean {
    return !isDefined(this.base.xref, num) && isDefined(this.next.xref, num);
  }

  approve(num: number, level: Level): void {
    if (!this.changed.has(num)) return;
    const prev = this.approved.get(num);
    if (prev === undefined || level < prev) this.approved.set(num, level);
  }

  /** Approves every created object reachable from `value` (never entering older objects). */
  approveCreated(value: PdfObject | undefined, level: Level): void {
    for (const num of reachableThrough(this.next, value, (n) => this.isCreated(n))) this.approve(num, level);
  }

  /** True when every place `base` references `num` from satisfies `allowed`. */
  onlyUsedAs(num: number, allowed: (u: Usage) => boolean): boolean {
    return (this.usages.get(num) ?? []).every(allowed);
  }

  /**
   * A value that may be indirect, at `place`, moving from `oldRaw` to `newRaw` (pyHanko's
   * `compare_key_refs` + `safe_whitelist`): a new object is fine; the same object rewritten is
   * fine when `base` uses it nowhere but at `place` (and, for a stream, only when `streamOk`);
   * pointing at some other existing object that was rewritten is not. The content is the
   * caller's to check.
   */
  approveSlot(oldRaw: PdfObject | undefined, newRaw: PdfObject | undefined, level: Level, place: Place, what: string, streamOk = false): void {
    if (!(newRaw instanceof PdfRef) || !this.changed.has(newRaw.num)) return;
    if (this.isCreated(newRaw.num)) {
      this.approve(newRaw.num, level);
      return;
    }
    const same = oldRaw instanceof PdfRef && oldRaw.num === newRaw.num;
    if (!same) this.fail(`${what} apunta a otro objeto ya existente que fue reescrito`);
    if (!streamOk && (this.base.getObject(newRaw.num) instanceof PdfStream || this.next.getObject(newRaw.num) instanceof PdfStream)) {
      this.fail(`${what} reescribe un stream existente`);
    }
    const elsewhere = (this.usages.get(newRaw.num) ?? []).find((u) => u.from !== place.from || u.path !== place.path);
    if (elsewhere) this.fail(`${what} se reescribió, pero la versión firmada también lo usa en otro lugar (${describe(elsewhere)})`);
    this.approve(newRaw.num, level);
  }

  /** `resolve` in `next` that keeps dictionaries only (streams are not dictionaries here). */
  nextDict(raw: PdfObject | undefined): PdfDict | undefined {
    const v = this.next.resolve(raw);
    return v instanceof PdfDict ? v : undefined;
  }

  baseDict(raw: PdfObject | undefined): PdfDict | undefined {
    const v = this.base.resolve(raw);
    return v instanceof PdfDict ? v : undefined;
  }
}

export function describe(u: Usage): string {
  return `${u.from === 'trailer' ? 'el trailer' : `el objeto ${u.from}`}${u.path ? ` /${u.path.replaceAll('.', '/')}` : ''}`;
}
