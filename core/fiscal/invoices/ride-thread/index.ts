/**
 * Renders RIDEs on a worker thread of their own. Measured on this machine (test/bench and
 * docs/sri.md): 75–90 ms for a three-line invoice, about 0.5 s for a hundred lines — time the
 * API's thread would otherwise spend away from every other request. The thread starts at the
 * first RIDE, is not kept alive when idle (`unref`), and is started again after a crash; a
 * render that runs past `deadlineMs` ends the thread and fails its request.
 *
 * @example
 *   const rides = createRideThread();
 *   const pdf = await rides.render({ issuer, invoice, numbering, authorization, environment: 'PRUEBAS', emission: 'NORMAL' });
 *   await rides.close();
 */
import { Worker } from 'node:worker_threads';
import { SelloError } from '../../../errors/index.js';
import { threadEntry } from '../../../paths.js';
import type { RideData } from '../../sri/index.js';
import type { RideAnswer, RideJob } from './protocol.js';

export interface RideThread {
  render(data: RideData): Promise<Buffer>;
  close(): Promise<void>;
}

interface Pending {
  resolve(pdf: Buffer): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

const ENTRY = threadEntry('ride-thread', new URL('./entry.mjs', import.meta.url));

export function createRideThread(options: { deadlineMs?: number } = {}): RideThread {
  const deadlineMs = options.deadlineMs ?? 30_000;
  let worker: Worker | undefined;
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (why: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.reject(new SelloError('internal_error', { detail: `No se pudo generar el RIDE: ${why}` }));
    }
  };

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(ENTRY);
    w.on('message', (answer: RideAnswer) => {
      const p = pending.get(answer.id);
      if (!p) return;
      pending.delete(answer.id);
      clearTimeout(p.timer);
      if ('pdf' in answer) p.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
      else p.reject(new SelloError('internal_error', { detail: 'No se pudo generar el RIDE.', cause: new Error(answer.error) }));
      if (pending.size === 0) w.unref();
    });
    const gone = (why: string) => {
      if (worker === w) worker = undefined;
      failAll(why);
    };
    w.on('error', (err) => gone(err.message));
    w.on('exit', (code) => gone(`el hilo del RIDE terminó (${code})`));
    worker = w;
    return w;
  }

  return {
    render(data) {
      if (closed) return Promise.reject(new SelloError('internal_error', { detail: 'Sello se está deteniendo.' }));
      const id = nextId++;
      const w = thread();
      w.ref();
      return new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new SelloError('internal_error', { detail: `El RIDE no se generó en ${deadlineMs / 1000} s.` }));
          void w.terminate();
        }, deadlineMs);
        pending.set(id, { resolve, reject, timer });
        w.postMessage({ id, data } satisfies RideJob);
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      failAll('Sello se está deteniendo.');
      if (w) await w.terminate();
    },
  };
}
