/**
 * The process's side of the PDF thread: a queue of jobs, one worker thread started with
 * `resourceLimits`, a watchdog that stops the thread when an untrusted phase outlives the
 * deadline, and what happens when the thread dies.
 *
 * - Up to `window` jobs are in the thread at once, so that it goes from one to the next without
 *   waiting for this thread (busy with the store and the API) to hand it more. A job whose bytes
 *   are handed over (transferred, not copied: large PDFs) is in the thread alone, since its bytes
 *   go wherever the thread goes.
 * - The thread publishes the job whose untrusted phase runs on the phase board. When the thread
 *   dies (out of memory, a crash) or is stopped by the watchdog, that job is the culprit: it
 *   fails with `pdf_too_complex`. The others in the thread are innocent: they run again on a
 *   fresh thread, never here. One that was there at `MAX_DEATHS` deaths is given up.
 * - A thread that cannot start fails the jobs waiting for it (`internal_error`, the reason
 *   logged); the next job tries to start one again.
 * - Without work for `idleMs` the thread stops; the next job starts it again.
 */
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../../paths.js';
import { SelloError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { PdfThreadStopped, exceededLimits, threadDiedWithJob, threadUnavailable, type Death, type Limits } from './failures.js';
import { createPhaseBoard, openPhaseBoard, runningPhase, type PhaseBoard } from './phase-board.js';
import type { JobKind, JobResults, PdfAnswer, PdfJob, Ready, ThreadData } from './protocol.js';

export interface RunnerOptions extends Limits {
  log: Logger;
  /** Without work this long, the thread stops (it holds ~30 MB). */
  idleMs?: number;
  /** The thread's entry; tests point it at one whose operations misbehave. */
  entry?: URL;
  /** Jobs in the thread at once. */
  window?: number;
}

export interface RunnerCounts {
  /** Jobs the thread answered, with a result or a refusal. */
  answered: number;
  /** Threads started. */
  starts: number;
  /** Jobs failed for running past the deadline or the memory, or for killing the thread. */
  culprits: number;
  /** Jobs run again on a fresh thread after another job's death. */
  reruns: number;
}

/** What a job needs to be (re)sent: its message for a thread that holds the key sources in `known`. */
export interface JobSpec<K extends JobKind> {
  kind: K;
  pdf: Uint8Array;
  /** Transfer the caller's bytes instead of copying them (the caller gives them up). */
  handOver: boolean;
  message(base: { id: number; pdf: Uint8Array; handsOver?: true }, known: ReadonlySet<number>): { job: Extract<PdfJob, { kind: K }>; sourceId?: number };
}

export interface JobOutcome<K extends JobKind> {
  value: JobResults[K];
  /** The caller's bytes, back from the thread when they were handed over. */
  pdf?: Uint8Array;
}

export interface Runner {
  run<K extends JobKind>(spec: JobSpec<K>): Promise<JobOutcome<K>>;
  warm(): void;
  close(): Promise<void>;
  counts(): RunnerCounts;
  running(): boolean;
}

interface Task {
  id: number;
  spec: JobSpec<JobKind>;
  handOver: boolean;
  /** Deaths of the thread this job was in without being their culprit. */
  deaths: number;
  resolve(outcome: JobOutcome<JobKind>): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  board: PhaseBoard;
  /** The thread loaded its code (its `Ready`). */
  online: boolean;
  /** Key sources whose key this thread has. */
  known: Set<number>;
  inFlight: Map<number, Task>;
  watchdog: NodeJS.Timeout;
  /** Set when this side stops the thread: the deadline of `culprit`'s phase, or a close. */
  stopping?: 'deadline' | 'closing';
  culprit?: number;
  error?: unknown;
  dead: boolean;
}

const DEFAULT_WINDOW = 8;
/** A job in the thread at this many deaths that were not its own is given up. */
const MAX_DEATHS = 3;
/** V8's default stack for a thread: deep enough for any honest PDF, and a hostile one overflows it into a coded refusal. */
const STACK_MB = 4;

function isOutOfMemory(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

export function createRunner(opts: RunnerOptions): Runner {
  const { log } = opts;
  const limits: Limits = { deadlineMs: opts.deadlineMs, memoryMb: opts.memoryMb };
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const entry = opts.entry ?? threadEntry('pdf-thread', new URL('./entry.mjs', import.meta.url));
  const window = opts.window ?? DEFAULT_WINDOW;
  /** The watchdog looks this often: a tenth of the deadline, within 10–250 ms. */
  const tickMs = Math.min(250, Math.max(10, Math.floor(limits.deadlineMs / 10)));
  const queue: Task[] = [];
  const counts: RunnerCounts = { answered: 0, starts: 0, culprits: 0, reruns: 0 };
  let thread: Thread | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;

  function start(): Thread | undefined {
    const buffer = createPhaseBoard();
    let worker: Worker;
    try {
      worker = new Worker(entry, {
        workerData: { board: buffer } satisfies ThreadData,
        resourceLimits: {
          maxOldGenerationSizeMb: limits.memoryMb,
          maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(limits.memoryMb / 8))),
          stackSizeMb: STACK_MB,
        },
      });
    } catch (err) {
      log.warn('PDF thread could not start; PDF jobs fail until it can', { err });
      for (const task of queue.splice(0)) task.reject(threadUnavailable());
      return undefined;
    }
    counts.starts++;
    const t: Thread = { worker, board: openPhaseBoard(buffer), online: false, known: new Set(), inFlight: new Map(), dead: false, watchdog: setInterval(() => watch(t), tickMs) };
    t.watchdog.unref();
    thread = t;
    worker.unref(); // kept alive only while it has work (see `busy`)
    worker.on('message', (message: PdfAnswer | Ready) => {
      if ('ready' in message) t.online = true;
      else settle(t, message);
    });
    worker.on('error', (err) => {
      t.error = err;
    });
    worker.on('exit', (code) => died(t, code));
    return t;
  }

  /** Stops the thread when the phase running has outlived the deadline; its job is the culprit. */
  function watch(t: Thread): void {
    if (t.inFlight.size === 0 || t.stopping) return;
    const phase = runningPhase(t.board);
    if (!phase || Date.now() - phase.since <= limits.deadlineMs) return;
    t.stopping = 'deadline';
    t.culprit = phase.jobId;
    void t.worker.terminate();
  }

  function settle(t: Thread, answer: PdfAnswer): void {
    const task = t.inFlight.get(answer.id);
    if (!task) return;
    t.inFlight.delete(answer.id);
    counts.answered++;
    if (answer.ok) {
      task.resolve({ value: answer.value, ...(answer.pdf ? { pdf: answer.pdf } : {}) });
    } else {
      const { code, details, log: inside } = answer.failure;
      // A refusal with something inside (a reader that met what it did not expect, a bug): logged with its stack, never shown.
      if (inside) (code === 'internal_error' ? log.error : log.warn)('PDF job failed on the PDF thread', { kind: task.spec.kind, code, inside });
      task.reject(new SelloError(code, details));
    }
    pump();
  }

  /** The thread is gone: culprit, innocents, or a thread that never started. */
  function died(t: Thread, exitCode: number): void {
    if (t.dead) return;
    t.dead = true;
    clearInterval(t.watchdog);
    if (thread === t) thread = undefined;
    const tasks = [...t.inFlight.values()];
    t.inFlight.clear();
    if (t.stopping === 'closing') {
      for (const task of tasks) task.reject(new PdfThreadStopped());
      return;
    }
    const phase = runningPhase(t.board);
    if (!t.online && phase === undefined && t.culprit === undefined) {
      log.warn('PDF thread could not start; PDF jobs fail until it can', { err: t.error, exitCode });
      for (const task of [...tasks, ...queue.splice(0)]) task.reject(threadUnavailable());
      return;
    }
    const death: Death = t.stopping === 'deadline' ? 'deadline' : isOutOfMemory(t.error) ? 'memory' : 'crash';
    // Out of memory with one job inside and none of its phases running: the memory was still that job's.
    const culprit = t.culprit ?? phase?.jobId ?? (death === 'memory' && tasks.length === 1 ? tasks[0]!.id : undefined);
    const again: Task[] = [];
    for (const task of tasks) {
      if (task.id === culprit) {
        counts.culprits++;
        task.reject(exceededLimits(death, limits));
      } else if (task.handOver || ++task.deaths >= MAX_DEATHS) {
        task.reject(threadDiedWithJob());
      } else {
        again.push(task);
      }
    }
    const kind = tasks.find((task) => task.id === culprit)?.spec.kind ?? null;
    log.warn('PDF thread stopped', { death, culprit: culprit ?? null, kind, rerun: again.length, exitCode, err: t.error });
    counts.reruns += again.length;
    queue.unshift(...again);
    pump();
  }

  /** Hands queued jobs to the thread, starting one if needed. */
  function pump(): void {
    if (queue.length === 0) {
      idle();
      return;
    }
    const t = thread ?? start();
    if (!t) return;
    while (queue.length > 0 && t.inFlight.size < window) {
      const next = queue[0]!;
      const alone = [...t.inFlight.values()].some((task) => task.handOver);
      if (alone || (next.handOver && t.inFlight.size > 0)) break;
      queue.shift();
      post(t, next);
    }
    busy(t);
  }

  function post(t: Thread, task: Task): void {
    const send = (handOver: boolean) => {
      const { job, sourceId } = task.spec.message({ id: task.id, pdf: task.spec.pdf, ...(handOver ? { handsOver: true as const } : {}) }, t.known);
      t.worker.postMessage(job, handOver ? [task.spec.pdf.buffer as ArrayBuffer] : []);
      if (sourceId !== undefined) t.known.add(sourceId);
    };
    try {
      try {
        send(task.handOver);
      } catch (err) {
        if (!task.handOver) throw err;
        task.handOver = false; // bytes that cannot be transferred (allocated outside V8): copied instead
        send(false);
      }
    } catch (err) {
      log.error('PDF job not handed to the PDF thread', { kind: task.spec.kind, err });
      task.reject(new SelloError('internal_error', { detail: 'Sello no pudo pasar el archivo a su lector de PDF. El registro de Sello tiene el detalle.' }));
      return;
    }
    t.inFlight.set(task.id, task);
  }

  /** Keeps the process alive while a job is under way. */
  function busy(t: Thread): void {
    clearTimeout(idleTimer);
    if (t.inFlight.size > 0) t.worker.ref();
  }

  /** Lets the process exit while the thread waits; stops it once idle long enough. */
  function idle(): void {
    const t = thread;
    if (!t || t.inFlight.size > 0 || queue.length > 0) return;
    t.worker.unref();
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void close(), idleMs);
    idleTimer.unref();
  }

  async function close(): Promise<void> {
    clearTimeout(idleTimer);
    for (const task of queue.splice(0)) task.reject(new PdfThreadStopped());
    const t = thread;
    if (!t) return;
    thread = undefined;
    t.stopping ??= 'closing';
    const code = await t.worker.terminate();
    died(t, code);
  }

  return {
    run<K extends JobKind>(spec: JobSpec<K>): Promise<JobOutcome<K>> {
      return new Promise<JobOutcome<K>>((resolve, reject) => {
        const task: Task = {
          id: nextId++,
          spec: spec as unknown as JobSpec<JobKind>,
          handOver: spec.handOver,
          deaths: 0,
          resolve: (outcome) => resolve(outcome as JobOutcome<K>),
          reject,
        };
        queue.push(task);
        pump();
      });
    },
    warm() {
      if (thread) return;
      if (start()) idle();
    },
    close,
    counts: () => ({ ...counts }),
    running: () => thread !== undefined,
  };
}
