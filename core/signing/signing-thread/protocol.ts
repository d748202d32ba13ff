/** Messages between the process and its signing thread (./index.ts, ./thread.ts). */
import type { KeyObject } from 'node:crypto';
import type { ErrorCode, SelloErrorDetails } from '../../errors/index.js';
import type { SignPdfOptions } from '../../pdf/index.js';

export interface SignJob {
  id: number;
  /** The key source, by a number the process gave it; its key travels only the first time. */
  sourceId: number;
  key?: { kind: 'software' | 'p12'; privateKey: KeyObject; certificate: Uint8Array; chain: Uint8Array[] };
  pdf: Uint8Array;
  options: SignPdfOptions;
}

/** Sent once by the thread when its code is loaded: from then on it signs. */
export interface Ready {
  ready: true;
}

export type SignAnswer =
  | { id: number; ok: true; update: Uint8Array }
  /** A coded refusal (`certificate_expired`, `pdf_damaged`…), or `message` for anything else (a bug). */
  | { id: number; ok: false; code?: ErrorCode; details?: Omit<SelloErrorDetails, 'cause'>; message: string };
