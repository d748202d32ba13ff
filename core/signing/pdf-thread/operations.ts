/**
 * The untrusted work of the PDF thread: each operation reads bytes that came from outside
 * (an ERP, a watched folder, a file given to the CLI) and is synchronous, so that the thread
 * can publish it as one phase on the phase board. Tests give the thread other operations to
 * stand for a file that never finishes parsing or takes all the memory (the real reader's
 * bounds are tested with real files elsewhere).
 */
import {
  completeSignature,
  inspectPdf,
  preparePdfSignature,
  verifyPdfSignatures,
  type PdfSummary,
  type PreparedUpdate,
  type PrepareOptions,
  type SignatureReport,
} from '../../pdf/index.js';
import type { VerifyExtras } from './protocol.js';

export interface PdfOperations {
  inspect(pdf: Buffer): PdfSummary;
  verify(pdf: Buffer, extras: VerifyExtras): SignatureReport[];
  prepare(pdf: Buffer, options: PrepareOptions): PreparedUpdate;
  /** Embeds the CMS and reads the signed file back (core/pdf `completeSignature`); returns the update. */
  complete(pdf: Buffer, prepared: PreparedUpdate, cms: Buffer): Buffer;
}

export const pdfOperations: PdfOperations = {
  inspect: inspectPdf,
  verify(pdf, extras) {
    const args: Parameters<typeof verifyPdfSignatures> = [pdf, ...extras];
    return verifyPdfSignatures(...args);
  },
  prepare: preparePdfSignature,
  complete: completeSignature,
};
