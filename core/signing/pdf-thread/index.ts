/**
 * The PDF thread: every PDF that comes from outside (a signing request, a watched folder, the
 * file given to `sello sign` or `sello verify`, a document verified at `/v/{id}`) is parsed on
 * one worker thread with `resourceLimits` and a deadline per untrusted phase, never on the
 * thread that serves the API and writes the store. A file that runs past the deadline or the
 * memory fails its own job with `pdf_too_complex`; the agent goes on (docs/signing.md).
 *
 * @example
 *   const pdfs = createPdfThread({ log, deadlineMs: config.pdfDeadlineMs, memoryMb: config.pdfMemoryMb });
 *   const summary = await pdfs.inspect(pdf);
 *   const reports = await pdfs.verify(pdf);
 *   const { original, update } = await pdfs.sign(pdf, source, { stamp });
 */
export { createPdfThread, type PdfThread, type PdfThreadOptions, type SignedPdf } from './pdf-thread.js';
export { PdfThreadStopped } from './failures.js';
export { createVerificationCache, type VerificationCache } from './verification-cache.js';
export type { RunnerCounts as PdfThreadCounts } from './runner.js';
export { servePdfJobs } from './thread.js';
export { pdfOperations, type PdfOperations } from './operations.js';
