/**
 * The reader's bounds, in one place. Every size or count read from a file is checked against
 * these where it is read (never used to size an allocation first): the numbers come from
 * ISO 32000 where it sets them (Annex C of PDF 32000-1:2008: 8,388,607 indirect objects,
 * generation numbers up to 65,535) and from the input's own size otherwise (an xref stream
 * cannot describe more rows than its data holds, an inflated stream is bounded by its input
 * times a ratio).
 *
 * A `ReadBudget` is the work and memory allowed to one parse of one file: one per
 * `PdfDocument`, one per `readCrossReference`, one per reconstruction, shared by everything
 * read through it, so that many small allowed steps still add up to a bounded whole. Work is
 * counted in bytes traversed by each parse, xref rows and object-stream entries: plain
 * counters, so that a well-formed file pays nothing it would notice. Exceeding it is
 * `pdf_too_complex`, never a crash.
 */
import { SelloError } from '../../errors/index.js';

export const PDF_LIMITS = {
  /** PDF 32000-1:2008 Annex C.2: the largest object number a conforming file uses. */
  maxObjectNumber: 8_388_607,
  /** §7.5.5 Table 15: /Size is one more than the highest object number, so at most this. */
  maxSize: 8_388_608,
  /** §7.3.10 / §7.5.4: a generation number has five digits and stops at 65,535. */
  maxGeneration: 65_535,
  /** Nesting of arrays and dictionaries in one object (Annex C: 28 for q/Q; readers accept more). */
  maxNesting: 200,
  /**
   * Objects being loaded at once (an object → its object stream → that stream's indirect
   * /Length → …): real files need three; more is a chain built to exhaust the stack.
   */
  maxLoadDepth: 32,
  /** References followed from one value to a direct object (`1 0 R` → `2 0 R` → …). */
  maxReferenceChain: 32,
  /** Depth of the page tree walked (§7.7.3.2); real trees are a handful of levels deep. */
  maxPageTreeDepth: 64,
  /** Depth of the form's field tree walked (§12.7.3.1). */
  maxFieldDepth: 32,
  /** Top-level form fields read to choose a new field name; past this a random name is used. */
  maxFieldNames: 5000,
  /** Revisions followed through /Prev (§7.5.6); the largest real files have a few hundred. */
  maxRevisions: 10_000,
  /**
   * §7.5.8.2 /W: a field wider than 8 bytes cannot be held in a JavaScript number (and no
   * offset, object number or generation needs more than 6).
   */
  maxXrefFieldWidth: 8,
  /** §7.4.4.4 Table 8 /Colors: a pixel of more than 32 components is not an image. */
  maxPredictorColors: 32,
  /** One inflated stream (object and xref streams only: content streams are never decoded). */
  maxInflatedStream: 64 * 1024 * 1024,
  /** Inflated bytes for one whole parse. */
  maxInflatedDocument: 256 * 1024 * 1024,
  /** Above `inflateRatioFloor` of output, a stream may inflate to at most this many times its encoded size. */
  maxInflateRatio: 200,
  inflateRatioFloor: 1024 * 1024,
  /** Work units (bytes parsed, objects, xref rows) for one parse, per byte of the file, plus a floor. */
  workPerByte: 8,
  workFloor: 4_000_000,
} as const;

/** §7.4.4.4 Table 8 /BitsPerComponent. */
const BITS_PER_COMPONENT = new Set([1, 2, 4, 8, 16]);

/** The work and memory one parse of a file of `fileLength` bytes may spend. */
export class ReadBudget {
  private work = 0;
  private inflated = 0;
  readonly maxWork: number;

  constructor(readonly fileLength: number) {
    this.maxWork = PDF_LIMITS.workFloor + PDF_LIMITS.workPerByte * fileLength;
  }

  /** Work spent so far (for tests that check that a parse stays linear). */
  get spent(): number {
    return this.work;
  }

  /** Counts `units` of work; throws `pdf_too_complex` past the budget. */
  spend(units = 1): void {
    this.work += units;
    if (this.work > this.maxWork) throw tooComplex('la lectura excede el trabajo permitido para un archivo de este tamaño');
  }

  /**
   * The most a stream of `encodedLength` bytes may inflate to: the per-stream limit, the ratio
   * limit and what is left of the document's allowance, whichever is smallest (at least 1).
   */
  inflateCap(encodedLength: number): number {
    const byRatio = Math.max(PDF_LIMITS.inflateRatioFloor, PDF_LIMITS.maxInflateRatio * encodedLength);
    const left = PDF_LIMITS.maxInflatedDocument - this.inflated;
    return Math.max(1, Math.min(PDF_LIMITS.maxInflatedStream, byRatio, left));
  }

  /** Counts inflated output; throws `pdf_too_complex` past the document's allowance. */
  inflate(bytes: number): void {
    this.inflated += bytes;
    if (this.inflated > PDF_LIMITS.maxInflatedDocument) throw tooComplex('los streams comprimidos se expanden más de lo permitido');
  }
}

/** `pdf_too_complex` with the reason, in Spanish, for the log and the error file. */
export function tooComplex(reason: string): SelloError {
  return new SelloError('pdf_too_complex', {
    detail: `El PDF supera los límites de lectura de Sello (${reason}): puede estar construido para bloquear a quien lo abra. Vuelva a generarlo o imprímalo a PDF desde el programa original.`,
  });
}

/** An object number as §7.3.10 and Annex C allow: an integer in 0 … 8,388,607. */
export function isObjectNumber(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= PDF_LIMITS.maxObjectNumber;
}

/** A generation number: an integer in 0 … 65,535. */
export function isGeneration(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= PDF_LIMITS.maxGeneration;
}

/** A trailer /Size (§7.5.5): a positive integer no larger than 8,388,608. */
export function isPdfSize(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= PDF_LIMITS.maxSize;
}

/** A non-negative integer (a count, an offset or a length read from the file). */
export function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** §7.4.4.4 Table 8: /BitsPerComponent is 1, 2, 4, 8 or 16. */
export function isBitsPerComponent(n: number): boolean {
  return BITS_PER_COMPONENT.has(n);
}
