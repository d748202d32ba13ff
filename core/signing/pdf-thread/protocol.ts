/** Messages between the process and its PDF thread (./pdf-thread.ts, ./thread.ts). Every field survives a structured clone. */
import type { KeyObject } from 'node:crypto';
import type { ErrorCode, SelloErrorDetails } from '../../errors/index.js';
import type { PdfSummary, PrepareOptions, SignatureReport, verifyPdfSignatures } from '../../pdf/index.js';

/** What `verifyPdfSignatures` takes after the PDF (its options, such as trust anchors), handed to the thread as it is. */
export type VerifyExtras = Parameters<typeof verifyPdfSignatures> extends [Buffer, ...infer Rest] ? Rest : never;

/** A key held in this process, sent to the thread the first time one of its signatures goes there. */
export interface KeyMaterial {
  kind: 'software' | 'p12';
  privateKey: KeyObject;
  certificate: Uint8Array;
  chain: Uint8Array[];
}

/** `PreparedUpdate` (core/pdf) as it crosses threads: Buffers arrive as Uint8Arrays. */
export interface PreparedData {
  byteRange: [number, number, number, number];
  digest: Uint8Array;
  update: Uint8Array;
  contentsAt: number;
  contentsSize: number;
}

/** Where the CMS of a signature made on the thread gets its timestamp (PAdES B-T). */
export interface CmsOptions {
  timestampUrl?: string;
  caFile?: string;
}

interface JobBase {
  /** Unique per process and never 0 (0 means "no phase" on the phase board). */
  id: number;
  pdf: Uint8Array;
  /** The bytes moved with the message (transferred): the answer hands them back. */
  handsOver?: true;
}

export type PdfJob =
  | (JobBase & { kind: 'inspect' })
  | (JobBase & { kind: 'verify'; extras: VerifyExtras })
  /** A signature with a key the thread holds: prepare, CMS and completion, all there. */
  | (JobBase & { kind: 'sign'; prepare: PrepareOptions; cms: CmsOptions; sourceId: number; key?: KeyMaterial })
  /** The halves of a token signature around the CMS, which the process builds with the token. */
  | (JobBase & { kind: 'prepare'; prepare: PrepareOptions })
  | (JobBase & { kind: 'complete'; prepared: PreparedData; cms: Uint8Array });

export type JobKind = PdfJob['kind'];

export interface JobResults {
  inspect: PdfSummary;
  verify: SignatureReport[];
  /** The signed update; the signed file is the original followed by it. */
  sign: Uint8Array;
  prepare: PreparedData;
  complete: Uint8Array;
}

/** A refusal (`pdf_damaged`, `certificate_expired`…) as it crosses threads: a SelloError without its cause. */
export interface ThreadFailure {
  code: ErrorCode;
  details: Omit<SelloErrorDetails, 'cause'>;
  /** What went wrong inside, for the log only (a stack): never shown to a user. */
  log?: string;
}

export type PdfAnswer = { id: number; pdf?: Uint8Array } & ({ ok: true; value: JobResults[JobKind] } | { ok: false; failure: ThreadFailure });

/** Sent once by the thread when its code is loaded. */
export interface Ready {
  ready: true;
}

/** What the thread is started with (`workerData`). */
export interface ThreadData {
  /** The phase board (./phase-board.ts). */
  board: SharedArrayBuffer;
}
