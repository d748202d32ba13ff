/** A PDF thread whose operations obey the markers of ./misbehaving-pdfs.ts before doing their real work. */
import { pdfOperations, servePdfJobs } from '../../core/signing/pdf-thread/index.js';
import { misbehave } from './misbehaving-pdfs.js';

servePdfJobs({
  inspect: (pdf) => (misbehave(pdf, 'inspect'), pdfOperations.inspect(pdf)),
  verify: (pdf, extras) => (misbehave(pdf, 'verify'), pdfOperations.verify(pdf, extras)),
  prepare: (pdf, options) => (misbehave(pdf, 'prepare'), pdfOperations.prepare(pdf, options)),
  complete: (pdf, prepared, cms) => (misbehave(pdf, 'complete'), pdfOperations.complete(pdf, prepared, cms)),
});
