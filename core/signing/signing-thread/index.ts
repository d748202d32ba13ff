/**
 * Signing off the process's JavaScript thread. Building a signature (reading the PDF, the
 * stamp and its QR code, the CMS, the RSA operation) takes a few milliseconds of a small PDF,
 * about as much as the rest of what a watched file costs the agent (the store, the files),
 * which must stay on the process's thread. One worker thread signs with keys held in this
 * process (test certificates, `.p12`), so on two cores the two run side by side.
 *
 * Always on the process's own thread: token keys (a PKCS#11 session belongs to the thread
 * that opened it, and a token does one operation at a time anyway), PDFs above
 * `OFF_THREAD_MAX_BYTES` (handing one over copies it), and everything once the thread could
 * not start. A thread that dies mid-way costs nothing but time: what it was signing is signed
 * here instead. The thread starts at the first signature (or `warm()`) and stops after
 * `idleMs` without work.
 */
import { Worker } from 'node:worker_threads';
import { SelloError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { signPdf, type SignPdfOptions } from '../../pdf/index.js';
import type { KeySource, SoftwareKeySource } from '../key-sources/index.js';
import type { Ready, SignAnswer, SignJob } from './protocol.js';

export interface PdfSigner {
  /** `signPdf` (core/pdf), on the signing thread when the key is held in this process. */
  signPdf(pdf: Buffer, source: KeySource, options: SignPdfOptions): Promise<Buffer>;
  /** Starts the thread now, so that the first signature does not wait for it to load. */
  warm(): void;
  /** Stops the thread; later signatures start it again. */
  close(): Promise<void>;
  /** Signatures made so far on the thread, and here. */
  counts(): { thread: number; here: number };
  /** Whether the thread is up now. */
  running(): boolean;
}

/** Signs on the calling thread: the signing worker's default, for tests that build it alone. */
export function createInlinePdfSigner(): PdfSigner {
  let here = 0;
  return {
    signPdf: (pdf, source, options) => {
      here++;
      return signPdf(pdf, source, options);
    },
    warm() {},
    close: () => Promise.resolve(),
    counts: () => ({ thread: 0, here }),
    running: () => false,
  };
}

/** Larger PDFs are signed on the process's thread: copying one to the thread would double the memory it takes. */
export const OFF_THREAD_MAX_BYTES = 16 * 1024 * 1024;

export interface SigningThreadOptions {
  log: Logger;
  /** Without work this long, the thread stops (it holds ~30 MB). */
  idleMs?: number;
  /** The thread's entry; tests point it at one that fails. */
  entry?: URL;
}

interface Pending {
  resolve(signed: Buffer): void;
  reject(err: unknown): void;
  pdf: Buffer;
  source: KeySource;
  options: SignPdfOptions;
}

const isSoftware = (source: KeySource): source is SoftwareKeySource => 'privateKey' in source && source.kind !== 'token';

/** A copy in an ArrayBuffer of its own, to be transferred (a Buffer's may be a shared pool). */
const own = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

export function createSigningThread(opts: SigningThreadOptions): PdfSigner {
  const { log } = opts;
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const entry = opts.entry ?? new URL('./entry.mjs', import.meta.url);
  const pending = new Map<number, Pending>();
  /** Numbers given to key sources, and those whose key the running thread has. */
  const sourceIds = new WeakMap<SoftwareKeySource, number>();
  let sent = new Set<number>();
  let nextId = 1;
  let thread: Worker | undefined;
  /** The running thread has loaded its code (its `Ready`). */
  let online = false;
  /** The thread could not start: everything is signed here from then on. */
  let disabled = false;
  let idleTimer: NodeJS.Timeout | undefined;
  const counts = { thread: 0, here: 0 };
  const signHere = (pdf: Buffer, source: KeySource, options: SignPdfOptions): Promise<Buffer> => {
    counts.here++;
    return signPdf(pdf, source, options);
  };

  function start(): Worker {
    const worker = new Worker(entry);
    thread = worker;
    online = false;
    sent = new Set();
    worker.unref(); // kept alive only while it has work (see `busy`)
    worker.on('message', (message: SignAnswer | Ready) => {
      if ('ready' in message) {
        if (thread === worker) online = true;
      } else {
        settle(message);
      }
    });
    worker.on('error', (err) => gone(worker, err));
    worker.on('exit', (code) => gone(worker, new Error(`signing thread exited with code ${code}`)));
    return worker;
  }

  /** The thread failed or stopped: what it was signing is signed here. */
  function gone(worker: Worker, err: unknown): void {
    if (thread !== worker) return;
    thread = undefined;
    if (!online) {
      disabled = true;
      log.warn('signing thread could not start; signing on the main thread', { err });
    } else if (pending.size > 0) {
      log.warn('signing thread stopped; its signatures are made on the main thread', { err, pending: pending.size });
    }
    const orphans = [...pending.values()];
    pending.clear();
    for (const p of orphans) signHere(p.pdf, p.source, p.options).then(p.resolve, p.reject);
  }

  function settle(answer: SignAnswer): void {
    const p = pending.get(answer.id);
    if (!p) return;
    pending.delete(answer.id);
    idle();
    counts.thread++;
    if (answer.ok) p.resolve(Buffer.concat([p.pdf, answer.update]));
    else if (answer.code) p.reject(new SelloError(answer.code, answer.details));
    else p.reject(new Error(`signing thread: ${answer.message}`));
  }

  /** Keeps the process alive while a signature is under way; stops the thread once idle long enough. */
  function idle(): void {
    if (pending.size > 0) return;
    thread?.unref();
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void close(), idleMs);
    idleTimer.unref();
  }

  function busy(worker: Worker): void {
    clearTimeout(idleTimer);
    worker.ref();
  }

  async function close(): Promise<void> {
    clearTimeout(idleTimer);
    const worker = thread;
    if (!worker) return;
    await worker.terminate(); // its 'exit' signs anything pending here
  }

  return {
    signPdf(pdf, source, options) {
      if (disabled || !isSoftware(source) || pdf.length > OFF_THREAD_MAX_BYTES) return signHere(pdf, source, options);
      const worker = thread ?? start();
      let sourceId = sourceIds.get(source);
      if (sourceId === undefined) sourceIds.set(source, (sourceId = nextId++));
      const id = nextId++;
      const job: SignJob = { id, sourceId, pdf: own(pdf), options };
      if (!sent.has(sourceId)) {
        job.key = { kind: source.kind, privateKey: source.privateKey, certificate: own(source.certificate), chain: source.chain.map(own) };
        sent.add(sourceId);
      }
      try {
        worker.postMessage(job, [job.pdf.buffer as ArrayBuffer]);
      } catch (err) {
        // Options that cannot cross threads (none today): signed here, as before the thread.
        log.warn('signature not handed to the signing thread', { err });
        sent.delete(sourceId);
        return signHere(pdf, source, options);
      }
      return new Promise<Buffer>((resolve, reject) => {
        pending.set(id, { resolve, reject, pdf, source, options });
        busy(worker);
      });
    },
    warm() {
      if (!disabled && !thread) {
        start();
        idle();
      }
    },
    close,
    counts: () => ({ ...counts }),
    running: () => thread !== undefined,
  };
}
