/**
 * Messages between the campaign and its child processes (IPC with `serialization: 'advanced'`,
 * so PDF bytes cross as Uint8Array, not JSON), and what each stage of a mutant came to.
 */
import type { ErrorCode } from '../../core/errors/index.js';

/** /M of every signature the campaign makes: a fixed time keeps generated seeds byte-stable. */
export const SIGNING_TIME = new Date('2025-01-02T03:04:05Z');

export const STAGES = ['inspect', 'sign', 'verify input', 'verify output'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * The codes a hostile file may legitimately get: the file refused, never the agent hurt. Any
 * other error — a TypeError, a RangeError, a stack overflow, a SelloError with another code —
 * is a finding.
 */
export const REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'pdf_invalid',
  'pdf_damaged',
  'pdf_encrypted',
  'pdf_changes_forbidden',
  'pdf_too_complex',
  'pdf_output_unreadable',
  'page_out_of_range',
  'stamp_outside_page',
]);

export type StageOutcome =
  | { stage: Stage; result: 'ok' }
  | { stage: Stage; result: 'refused'; code: ErrorCode }
  | { stage: Stage; result: 'finding'; error: string; stack: string };

export interface InitMessage {
  type: 'init';
  keyPem: string;
  certPem: string;
}

export interface RunMessage {
  type: 'run';
  index: number;
  pdf: Uint8Array;
}

export type ToChild = InitMessage | RunMessage;

export interface ReadyMessage {
  type: 'ready';
}

/** Sent before each stage, so that a crash or a hang is attributed to the stage that caused it. */
export interface StageMessage {
  type: 'stage';
  index: number;
  stage: Stage;
}

export interface ResultMessage {
  type: 'result';
  index: number;
  outcomes: StageOutcome[];
  /** The signed file, when `sign` succeeded. */
  output: Uint8Array | null;
  /**
   * The numbers the update defines that the input already defined, as Sello read the input: the
   * objects it rewrote (page, /Annots, catalog, AcroForm, /Fields), as against the ones it made.
   */
  rewritten: number[];
  /** Peak resident memory of the child during this mutant (VmHWM, reset before it). */
  peakRssBytes: number;
  ms: number;
}

export type FromChild = ReadyMessage | StageMessage | ResultMessage;
