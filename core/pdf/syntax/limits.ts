/**
 * The reader's bounds, in one place. Every size or count read from a file is checked against
 * these where it is read (never used to size an allocation first): the numbers come from
 * ISO 32000 where it sets them (Annex C of PDF 32000-1:2008: 8,388,607 indirect objects,
 * generation numbers up to 65,535) and from the input's own size otherwise (an xref stream
 * cannot describe more rows than its data holds, an inflated stream is bounded by its input
 * times a ratio).
 *
 * A `ReadBudget` is the work and memory allowed to one parse of one file: one per
 * `PdfDocument`, shared by everything read through it, so that many small allowed steps still
 * add up to a bounded whole. Exceeding it is `pdf_too_complex`, never a crash.
 */
import { SelloError } from '../../errors/index.js';

export const PDF_LIMITS = {
  /** PDF 32000-1:2008 Annex C.2: the largest object number a conforming file uses. */
  maxObjectNumber: 8_388_607,
  /** §7.3.10 / §7.5.4: a generation number has five digits. */
  maxGeneration: 65_535,
  /** Nesting of arrays and dictionaries in one object (Annex C: 28 for q/Q; readers accept more). */
  maxNesting: 200,
  /** One inflated stream (object and xref streams only: content streams are never decoded). */
  maxInflatedStream: 64 * 1024 * 1024,
  /** Inflated bytes for one whole parse. */
  maxInflatedDocument: 256 * 1024 * 1024,
  /** Above 1 MiB of output, a stream may inflate to at most this many times its encoded size. */
  maxInflateRatio: 200,
  /** Work units (tokens, objects, xref rows) for one parse, per byte of the file, plus a floor. */
  workPerByte: 8,
  workFloor: 4_000_000,
} as const;

/** The work and memory one parse of a file of `fileLength` bytes may spend. */
export class ReadBudget {
  private work = 0;
  private inflated = 0;
  readonly maxWork: number;

  constructor(readonly fileLength: number) {
    this.maxWork = PDF_LIMITS.workFloor + PDF_LIMITS.workPerByte * fileLength;
  }

  /** Counts `units` of work; throws `pdf_too_complex` past the budget. */
  spend(units = 1): void {
    this.work += units;
    if (this.work > this.maxWork) throw tooComplex('la lectura excede el trabajo permitido para un archivo de este tamaño');
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
