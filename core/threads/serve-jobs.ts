/**
 * The thread's side of a job thread (./job-thread.ts): answers each job with `handle`'s result,
 * or the text of what it threw, after saying it is ready. Results that are byte arrays are
 * transferred, not copied.
 */
import { parentPort } from 'node:worker_threads';
import type { JobMessage, ResultMessage } from './job-thread.js';

export function serveJobs<Job, Result>(handle: (job: Job) => Result | Promise<Result>): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs: not started as a worker thread');
  port.on('message', (message: JobMessage<Job>) => {
    Promise.resolve()
      .then(() => handle(message.job))
      .then(
        (result) => {
          const transfer = result instanceof Uint8Array ? [result.buffer as ArrayBuffer] : [];
          port.postMessage({ id: message.id, result } satisfies ResultMessage<Result>, transfer);
        },
        (err: unknown) => port.postMessage({ id: message.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies ResultMessage<Result>),
      );
  });
  // Deadlines count from here, not from the thread's start.
  port.postMessage({ ready: true } satisfies ResultMessage<Result>);
}
