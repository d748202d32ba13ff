/**
 * A worker thread that answers jobs one message each: the process's side. Used for work that
 * must not hold the API's thread (rendering a RIDE: 50–500 ms; reading an SRI answer: bytes from
 * outside, seconds of DOM building for a hostile one). The thread starts at the first job, is
 * not kept alive when idle (`unref`), and is started again after it dies. A job that runs past
 * `deadlineMs` (counted from when the thread has loaded its code: loading TypeScript from
 * source takes a second) ends the thread (the jobs with it fail too, and are the callers' to retry); so
 * does one that exceeds `resourceLimits`. Every failure is `failure(why)`, the caller's error.
 *
 * The thread's side is `serveJobs` (./serve-jobs.ts).
 *
 * @example
 *   const thread = createJobThread<RideData, Uint8Array>({ entry, deadlineMs: 30_000, failure: (why) => new SelloError('internal_error', { detail: why }) });
 *   const pdf = await thread.run(data);
 *   await thread.close();
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** process → thread */
export interface JobMessage<Job> {
  id: number;
  job: Job;
}

/** thread → process: `ready` once, when its code is loaded; then one answer per job. */
export type ResultMessage<Result> = { ready: true } | { id: number; result: Result } | { id: number; error: string };

export interface JobThread<Job, Result> {
  run(job: Job): Promise<Result>;
  /** Fails the jobs still waiting and ends the thread. */
  close(): Promise<void>;
}

export interface JobThreadOptions {
  entry: URL;
  deadlineMs: number;
  resourceLimits?: ResourceLimits;
  /** The error a job fails with, from a Spanish reason (`why`) and, for a job the thread threw on, its text. */
  failure(why: string, cause?: Error): Error;
  /** Spanish names for the reasons: "el hilo del RIDE", … */
  name: string;
}

interface Waiting<Result> {
  resolve(result: Result): void;
  reject(err: Error): void;
  /** Starts the job's deadline (at once on a ready thread, else when it is ready). */
  start(): void;
  timer?: NodeJS.Timeout;
  /** The thread it was given to: only that thread's end fails it. */
  worker: Worker;
}

export function createJobThread<Job, Result>(options: JobThreadOptions): JobThread<Job, Result> {
  const { deadlineMs, failure, name } = options;
  let worker: Worker | undefined;
  let ready = false;
  let closed = false;
  let nextId = 1;
  const waiting = new Map<number, Waiting<Result>>();

  /** Fails the jobs given to `only` (every job when absent). */
  const failAll = (why: string, only?: Worker) => {
    for (const [id, w] of waiting) {
      if (only && w.worker !== only) continue;
      clearTimeout(w.timer);
      waiting.delete(id);
      w.reject(failure(why));
    }
  };

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(options.entry, options.resourceLimits ? { resourceLimits: options.resourceLimits } : {});
    ready = false;
    w.on('message', (message: ResultMessage<Result>) => {
      if ('ready' in message) {
        ready = true;
        for (const job of waiting.values()) if (job.worker === w) job.start();
        return;
      }
      const job = waiting.get(message.id);
      if (!job) return;
      waiting.delete(message.id);
      clearTimeout(job.timer);
      if ('result' in message) job.resolve(message.result);
      else job.reject(failure(`${name} no pudo hacer el trabajo`, new Error(message.error)));
      if (waiting.size === 0) w.unref();
    });
    // A thread ended at a deadline exits after the next job went to its successor: its end
    // fails only its own jobs.
    const gone = (why: string) => {
      if (worker === w) worker = undefined;
      failAll(why, w);
    };
    w.on('error', (err) => gone(`${name} falló (${err.message})`));
    w.on('exit', (code) => gone(`${name} terminó (${code})`));
    worker = w;
    return w;
  }

  return {
    run(job) {
      if (closed) return Promise.reject(failure('Sello se está deteniendo.'));
      const id = nextId++;
      const w = thread();
      w.ref();
      return new Promise<Result>((resolve, reject) => {
        const entry: Waiting<Result> = {
          worker: w,
          resolve,
          reject,
          start() {
            entry.timer ??= setTimeout(() => {
              waiting.delete(id);
              reject(failure(`${name} no terminó en ${deadlineMs / 1000} s`));
              // The thread is stuck on it: end it; the next job starts another.
              if (worker === w) worker = undefined;
              void w.terminate();
            }, deadlineMs);
          },
        };
        waiting.set(id, entry);
        if (ready) entry.start();
        w.postMessage({ id, job } satisfies JobMessage<Job>);
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
