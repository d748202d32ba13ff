/**
 * Which job's untrusted phase the PDF thread is running, and since when. The thread writes it
 * (Atomics) as a phase starts and ends; the process reads it while the thread is stuck inside
 * a phase and cannot answer: to stop a phase that outlives its deadline, and to know which job
 * was running when the thread died (out of memory, a crash).
 *
 * Layout: a SharedArrayBuffer of two 64-bit slots, the job's id (0 = no phase running) and the
 * phase's start (milliseconds since the epoch; both threads read the same clock).
 */
const JOB = 0;
const SINCE = 1;

export type PhaseBoard = BigInt64Array;

export function createPhaseBoard(): SharedArrayBuffer {
  return new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT);
}

export function openPhaseBoard(buffer: SharedArrayBuffer): PhaseBoard {
  return new BigInt64Array(buffer);
}

/** The start first: whoever sees the job's id sees its start too (Atomics are sequentially consistent). */
export function enterPhase(board: PhaseBoard, jobId: number, now: number = Date.now()): void {
  Atomics.store(board, SINCE, BigInt(now));
  Atomics.store(board, JOB, BigInt(jobId));
}

export function leavePhase(board: PhaseBoard): void {
  Atomics.store(board, JOB, 0n);
}

/** The phase running now, if any. */
export function runningPhase(board: PhaseBoard): { jobId: number; since: number } | undefined {
  const jobId = Number(Atomics.load(board, JOB));
  if (jobId === 0) return undefined;
  return { jobId, since: Number(Atomics.load(board, SINCE)) };
}
