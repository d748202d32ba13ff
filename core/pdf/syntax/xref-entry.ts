/**
 * One row of a cross-reference section (PDF 32000-1:2008 §7.5.4 Table 18, §7.5.8.3 Table 18)
 * and the error that says a section can't be trusted. Shared by the section readers
 * (cross-reference.ts, xref-stream.ts) and the reconstruction (reconstruct.ts).
 */

export type XrefEntry =
  | { kind: 'free' }
  /** `offset` is absolute in the file (header offset already added). */
  | { kind: 'offset'; offset: number; gen: number }
  | { kind: 'compressed'; stream: number; index: number };

/** The chain is unusable: the caller falls back to `reconstructCrossReference`. */
export class BrokenXrefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokenXrefError';
  }
}
