/** The PDF thread as the agent runs it: the real reader, preparer and verifier (./operations.ts). */
import { pdfOperations } from './operations.js';
import { servePdfJobs } from './thread.js';

servePdfJobs(pdfOperations);
