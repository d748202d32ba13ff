/**
 * Renders RIDEs on a worker thread of their own. Measured on this machine (test/bench and
 * docs/sri.md): 75–90 ms for a three-line invoice, about 0.5 s for a hundred lines — time the
 * API's thread would otherwise spend away from every other request. The thread starts at the
 * first RIDE, is not kept alive when idle (`unref`), and is started again after a crash; a
 * render that runs past `deadlineMs` ends the thread and fails its request.
 *
 * @example
 *   const rides = createRideThread();
 *   const pdf = await rides.render({ kind: 'invoice', issuer, document: invoice, numbering, authorization, environment: 'PRUEBAS', emission: 'NORMAL' });
 *   await rides.close();
 */
import { SelloError } from '../../../errors/index.js';
import { threadEntry } from '../../../paths.js';
import { createJobThread } from '../../../threads/job-thread.js';
import type { RideData } from '../../sri/index.js';

export interface RideThread {
  render(data: RideData): Promise<Buffer>;
  close(): Promise<void>;
}

const ENTRY = threadEntry('ride-thread', new URL('./entry.mjs', import.meta.url));

export function createRideThread(options: { deadlineMs?: number } = {}): RideThread {
  const thread = createJobThread<RideData, Uint8Array>({
    entry: ENTRY,
    deadlineMs: options.deadlineMs ?? 30_000,
    name: 'el hilo del RIDE',
    failure: (why, cause) => new SelloError('internal_error', { detail: `No se pudo generar el RIDE: ${why}.`, ...(cause ? { cause } : {}) }),
  });
  return {
    async render(data) {
      const pdf = await thread.run(data);
      return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
    },
    close: () => thread.close(),
  };
}
