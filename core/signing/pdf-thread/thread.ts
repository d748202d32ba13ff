/**
 * The PDF thread's side (./pdf-thread.ts is the process's): runs the jobs it is handed, each
 * untrusted phase published on the phase board, and answers each with its result or a coded
 * refusal. Several jobs may be under way at once (a signature waits for its timestamp), but
 * phases are synchronous: at most one runs at any moment, which is the one on the board.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SelloError, isSelloError } from '../../errors/index.js';
import { buildPadesCms, type PreparedUpdate } from '../../pdf/index.js';
import { makeSoftwareSource, type SoftwareKeySource } from '../key-sources/software.js';
import type { PdfOperations } from './operations.js';
import { enterPhase, leavePhase, openPhaseBoard, type PhaseBoard } from './phase-board.js';
import type { JobKind, JobResults, PdfAnswer, PdfJob, PreparedData, Ready, ThreadData, ThreadFailure } from './protocol.js';

/** Key sources seen, by the process's number: opening one checks the key against its certificate. */
const MAX_SOURCES = 64;

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** `bytes` and what to transfer to send them: their own ArrayBuffer, or a copy in one. */
function outgoing(bytes: Uint8Array): { bytes: Uint8Array; transfer: ArrayBuffer } {
  const owns = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const own = owns ? bytes : new Uint8Array(bytes);
  return { bytes: own, transfer: own.buffer as ArrayBuffer };
}

const STACK_OVERFLOW = /call stack/i;

/**
 * What escaped a phase, as a refusal about the PDF: the phase read nothing but the file, so a
 * fault there is the file's (a structure nested past the stack, or one the reader did not
 * expect). The original goes along as the cause, for the log.
 */
function phaseFailure(err: unknown): SelloError {
  if (isSelloError(err)) return err;
  if (err instanceof RangeError && STACK_OVERFLOW.test(err.message)) {
    return new SelloError('pdf_too_complex', {
      detail: 'El PDF tiene estructuras anidadas más profundas de lo que Sello admite al leerlo; puede estar construido para bloquear a quien lo abra. Vuelva a generarlo o imprímalo a PDF desde el programa original.',
      cause: err,
    });
  }
  return new SelloError('pdf_damaged', {
    detail: 'El PDF tiene una estructura que Sello no pudo leer. Vuelva a generarlo o imprímalo a PDF desde el programa original.',
    cause: err,
  });
}

const stackOf = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

function failureOf(err: unknown): ThreadFailure {
  if (isSelloError(err)) {
    const { cause, ...details } = err.details; // a cause may not cross threads: its stack goes to the log
    return { code: err.code, details, ...(cause ? { log: stackOf(cause) } : {}) };
  }
  return { code: 'internal_error', details: { detail: 'Error interno de Sello al leer o firmar el PDF.' }, log: stackOf(err) };
}

/** Serves the process's PDF jobs with `operations` until the thread is stopped. */
export function servePdfJobs(operations: PdfOperations): void {
  const port = parentPort;
  if (!port) throw new Error('servePdfJobs runs on a worker thread');
  const board: PhaseBoard = openPhaseBoard((workerData as ThreadData).board);
  const sources = new Map<number, SoftwareKeySource>();

  function phase<T>(jobId: number, fn: () => T): T {
    enterPhase(board, jobId);
    try {
      return fn();
    } catch (err) {
      throw phaseFailure(err);
    } finally {
      leavePhase(board);
    }
  }

  function sourceFor(job: Extract<PdfJob, { kind: 'sign' }>): SoftwareKeySource {
    let source = sources.get(job.sourceId);
    if (!source) {
      if (!job.key) throw new Error(`PDF thread: key source ${job.sourceId} unknown`);
      source = makeSoftwareSource(job.key.kind, { key: job.key.privateKey, certificate: asBuffer(job.key.certificate), chain: job.key.chain.map(asBuffer) });
      if (sources.size >= MAX_SOURCES) sources.delete(sources.keys().next().value!);
      sources.set(job.sourceId, source);
    }
    return source;
  }

  async function run(job: PdfJob): Promise<{ value: JobResults[JobKind]; transfer: ArrayBuffer[] }> {
    const pdf = asBuffer(job.pdf);
    switch (job.kind) {
      case 'inspect':
        return { value: phase(job.id, () => operations.inspect(pdf)), transfer: [] };
      case 'verify':
        return { value: phase(job.id, () => operations.verify(pdf, job.extras)), transfer: [] };
      case 'sign': {
        const source = sourceFor(job);
        const prepared = phase(job.id, () => operations.prepare(pdf, job.prepare));
        const cms = await buildPadesCms({ digest: prepared.digest, signer: source, ...job.cms });
        const update = outgoing(phase(job.id, () => operations.complete(pdf, prepared, cms)));
        return { value: update.bytes, transfer: [update.transfer] };
      }
      case 'prepare': {
        const prepared = phase(job.id, () => operations.prepare(pdf, job.prepare));
        const data: PreparedData = {
          byteRange: prepared.byteRange,
          digest: new Uint8Array(prepared.digest),
          update: new Uint8Array(prepared.update),
          contentsAt: prepared.contentsAt,
          contentsSize: prepared.contentsSize,
        };
        return { value: data, transfer: [data.update.buffer as ArrayBuffer] };
      }
      case 'complete': {
        const prepared: PreparedUpdate = { ...job.prepared, digest: asBuffer(job.prepared.digest), update: asBuffer(job.prepared.update) };
        const update = outgoing(phase(job.id, () => operations.complete(pdf, prepared, asBuffer(job.cms))));
        return { value: update.bytes, transfer: [update.transfer] };
      }
    }
  }

  function answer(job: PdfJob, result: { ok: true; value: JobResults[JobKind]; transfer: ArrayBuffer[] } | { ok: false; failure: ThreadFailure }): void {
    const transfer = result.ok ? [...result.transfer] : [];
    // Bytes the process handed over go back with the answer: the process kept no copy.
    const back = job.handsOver ? { pdf: job.pdf } : {};
    if (job.handsOver) transfer.push(job.pdf.buffer as ArrayBuffer);
    const message: PdfAnswer = result.ok ? { id: job.id, ok: true, value: result.value, ...back } : { id: job.id, ok: false, failure: result.failure, ...back };
    port!.postMessage(message, transfer);
  }

  port.on('message', (job: PdfJob) => {
    run(job).then(
      (done) => answer(job, { ok: true, ...done }),
      (err: unknown) => answer(job, { ok: false, failure: failureOf(err) }),
    );
  });
  port.postMessage({ ready: true } satisfies Ready);
}
