/**
 * The RIDE thread's side: renders each RIDE it is sent (core/fiscal/sri `renderRide`) and
 * answers with the PDF bytes (transferred, not copied) or the error's text. The data comes from
 * Sello's own store, never from outside, so there is nothing hostile to guard against here:
 * the thread exists only to keep 50–500 ms of pdf-lib and bwip-js work off the API's thread.
 */
import { serveJobs } from '../../../threads/serve-jobs.js';
import { renderRide, type RideData } from '../../sri/index.js';

serveJobs(async (data: RideData) => {
  const pdf = await renderRide(data);
  // Its own buffer, so that it can be transferred rather than copied.
  return new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength).slice();
});
