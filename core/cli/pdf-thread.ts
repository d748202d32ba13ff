/**
 * The PDF thread of one CLI command (`sello sign`, `sello verify`): the file given is read
 * there, under the same deadline and memory limit as in the agent (SELLO_PDF_DEADLINE_MS,
 * SELLO_PDF_MEMORY_MB), so that a hostile file ends the command with one clear line instead of
 * hanging it or aborting Node. Its log goes to stderr only with SELLO_DEBUG=1.
 */
import type { Config } from '../config.js';
import { createPdfThread, type PdfThread } from '../signing/pdf-thread/index.js';
import { debugLog } from './debug.js';

export async function withPdfThread<T>(config: Config, fn: (pdfs: PdfThread) => Promise<T>): Promise<T> {
  const pdfs = createPdfThread({ log: debugLog(), deadlineMs: config.pdfDeadlineMs, memoryMb: config.pdfMemoryMb });
  try {
    return await fn(pdfs);
  } finally {
    await pdfs.close();
  }
}
