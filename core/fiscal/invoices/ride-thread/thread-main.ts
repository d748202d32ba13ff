/**
 * The RIDE thread's side: renders each RIDE it is sent (core/fiscal/sri `renderRide`) and
 * answers with the PDF bytes (transferred, not copied) or the error's text. The data comes from
 * Sello's own store, never from outside, so there is nothing hostile to guard against here:
 * the thread exists only to keep 50–500 ms of pdf-lib and bwip-js work off the API's thread.
 */
import { parentPort } from 'node:worker_threads';
import { renderRide, type RideData } from '../../sri/index.js';
import type { RideAnswer, RideJob } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('ride-thread: not started as a worker thread');

port.on('message', (job: RideJob) => {
  renderRide(job.data as RideData).then(
    (pdf) => {
      const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength).slice();
      port.postMessage({ id: job.id, pdf: bytes } satisfies RideAnswer, [bytes.buffer]);
    },
    (err: unknown) => port.postMessage({ id: job.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies RideAnswer),
  );
});
