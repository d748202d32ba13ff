/**
 * What the agent and the CLI ask of the PDF thread: read a PDF's summary, verify its
 * signatures, sign it. The bytes are parsed only there (./runner.ts); this side prepares what
 * is trusted (the stamp, the space for the CMS) and, for a token, builds the CMS between the
 * thread's two phases, since a PKCS#11 session belongs to the thread that opened it.
 */
import { buildPadesCms, estimateCmsSize, type PdfSummary, type PrepareOptions, type SignatureReport, type SignPdfOptions } from '../../pdf/index.js';
import type { KeySource, SoftwareKeySource } from '../key-sources/index.js';
import type { CmsOptions, KeyMaterial, VerifyExtras } from './protocol.js';
import { createRunner, type RunnerCounts, type RunnerOptions } from './runner.js';

/** A signed PDF as two pieces: the signed file is `original` followed by `update`. */
export interface SignedPdf {
  original: Buffer;
  update: Buffer;
}

export interface PdfThread {
  /** Pages, encryption, certification (core/pdf `inspectPdf`). `pdf` stays the caller's. */
  inspect(pdf: Buffer): Promise<PdfSummary>;
  /** Every signature's report (core/pdf `verifyPdfSignatures`), its options passed as they are. `pdf` stays the caller's. */
  verify(pdf: Buffer, ...extras: VerifyExtras): Promise<SignatureReport[]>;
  /**
   * Signs `pdf` with `source` (core/pdf `signPdfParts`): with a key held in this process, all of
   * it on the thread; with a token, the PDF there and the CMS here. A large `pdf` that owns its
   * memory is handed over to the thread rather than copied: read the original from the answer,
   * never `pdf` again.
   */
  sign(pdf: Buffer, source: KeySource, options: SignPdfOptions): Promise<SignedPdf>;
  /** Starts the thread now, so that the first job does not wait for it to load. */
  warm(): void;
  /** Stops the thread; jobs still in it fail with `PdfThreadStopped`. Later jobs start it again. */
  close(): Promise<void>;
  counts(): RunnerCounts;
  /** Whether a thread is up now. */
  running(): boolean;
}

export type PdfThreadOptions = RunnerOptions & {
  /** PDFs from this size are handed over (transferred) to be signed, not copied. */
  handOverMinBytes?: number;
};

/** Handing over a PDF costs it the company of other jobs in the thread: only worth it for large ones. */
const HAND_OVER_MIN_BYTES = 4 * 1024 * 1024;

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

const isSoftware = (source: KeySource): source is SoftwareKeySource => source.kind !== 'token' && 'privateKey' in source;

/** A Buffer that is the whole of its ArrayBuffer can be transferred; a view into a larger one (a pool, a slice) cannot. */
const ownsItsMemory = (b: Buffer): boolean => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;

/** Uint8Arrays back to Buffers, as the report would have them had it been made here. */
function withBuffers<T>(value: T): T {
  if (value instanceof Uint8Array) return asBuffer(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => withBuffers(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBuffers(v)])) as T;
  }
  return value;
}

/** What `signPdfParts` would prepare: trusted values only (the certificate's size, the stamp the caller chose). */
function prepareOptionsFor(source: KeySource, options: SignPdfOptions): PrepareOptions {
  return {
    signingTime: options.signingTime ?? new Date(),
    contentsSize: estimateCmsSize(source, { timestamp: Boolean(options.timestampUrl) }),
    ...(options.stamp ? { stamp: options.stamp } : {}),
    ...(options.reason ? { reason: options.reason } : {}),
    ...(options.location ? { location: options.location } : {}),
  };
}

function cmsOptionsOf(options: SignPdfOptions): CmsOptions {
  return { ...(options.timestampUrl ? { timestampUrl: options.timestampUrl } : {}), ...(options.caFile ? { caFile: options.caFile } : {}) };
}

function keyMaterial(source: SoftwareKeySource): KeyMaterial {
  return { kind: source.kind, privateKey: source.privateKey, certificate: new Uint8Array(source.certificate), chain: source.chain.map((c) => new Uint8Array(c)) };
}

/**
 * @example
 *   const pdfs = createPdfThread({ log, deadlineMs: 30_000, memoryMb: 512 });
 *   const { pages } = await pdfs.inspect(pdf);
 *   const { original, update } = await pdfs.sign(pdf, source, { stamp });
 *   await pdfs.close();
 */
export function createPdfThread(opts: PdfThreadOptions): PdfThread {
  const runner = createRunner(opts);
  const handOverMin = opts.handOverMinBytes ?? HAND_OVER_MIN_BYTES;
  /** Numbers given to key sources: the thread keeps each key it was sent under its number. */
  const sourceIds = new WeakMap<SoftwareKeySource, number>();
  let nextSourceId = 1;
  const idOf = (source: SoftwareKeySource): number => {
    let id = sourceIds.get(source);
    if (id === undefined) sourceIds.set(source, (id = nextSourceId++));
    return id;
  };

  async function signHeld(pdf: Buffer, source: SoftwareKeySource, prepare: PrepareOptions, cms: CmsOptions): Promise<SignedPdf> {
    const sourceId = idOf(source);
    const handOver = pdf.length >= handOverMin && ownsItsMemory(pdf);
    const outcome = await runner.run({
      kind: 'sign',
      pdf,
      handOver,
      message: (base, known) => ({ job: { ...base, kind: 'sign', prepare, cms, sourceId, ...(known.has(sourceId) ? {} : { key: keyMaterial(source) }) }, sourceId }),
    });
    return { original: outcome.pdf ? asBuffer(outcome.pdf) : pdf, update: asBuffer(outcome.value) };
  }

  async function signOnToken(pdf: Buffer, source: KeySource, prepare: PrepareOptions, cms: CmsOptions): Promise<SignedPdf> {
    const { value: prepared } = await runner.run({ kind: 'prepare', pdf, handOver: false, message: (base) => ({ job: { ...base, kind: 'prepare', prepare } }) });
    const signature = await buildPadesCms({ digest: asBuffer(prepared.digest), signer: source, ...cms });
    const { value: update } = await runner.run({
      kind: 'complete',
      pdf,
      handOver: false,
      message: (base) => ({ job: { ...base, kind: 'complete', prepared, cms: signature } }),
    });
    return { original: pdf, update: asBuffer(update) };
  }

  return {
    async inspect(pdf) {
      return (await runner.run({ kind: 'inspect', pdf, handOver: false, message: (base) => ({ job: { ...base, kind: 'inspect' } }) })).value;
    },
    async verify(pdf, ...extras) {
      const { value } = await runner.run({ kind: 'verify', pdf, handOver: false, message: (base) => ({ job: { ...base, kind: 'verify', extras } }) });
      return withBuffers(value);
    },
    sign(pdf, source, options) {
      const prepare = prepareOptionsFor(source, options);
      const cms = cmsOptionsOf(options);
      return isSoftware(source) ? signHeld(pdf, source, prepare, cms) : signOnToken(pdf, source, prepare, cms);
    },
    warm: () => runner.warm(),
    close: () => runner.close(),
    counts: () => runner.counts(),
    running: () => runner.running(),
  };
}
