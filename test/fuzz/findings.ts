/**
 * What a mutant came to, as a row of the campaign's table, and its findings: saved as files
 * (the mutant's bytes and a .txt saying how to reproduce it) so that a developer can replay one
 * alone or hand the file to whoever fixes the reader.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Mutant } from './mutate.js';
import type { Stage } from './protocol.js';

export type FindingKind = 'error' | 'crash' | 'hang' | 'memory' | 'rejected by pdfsig/qpdf';

export interface Finding {
  kind: FindingKind;
  stage: Stage | null;
  message: string;
  /** Stack, tool output or stderr: what a developer reads next. */
  evidence: string;
}

/** 'signed, valid', 'refused: <code>' or 'finding'. */
export type Outcome = string;

export interface MutantRecord {
  index: number;
  seedName: string;
  mutation: string;
  details: string[];
  outcome: Outcome;
  findings: Finding[];
  peakRssBytes: number | null;
  ms: number | null;
  /** The saved reproducer (.pdf; its .txt beside it), when there are findings. */
  file?: string;
}

/** The first frame inside Sello's code, without line numbers: where a raw error came from. */
function sourceOf(evidence: string): string {
  const frame = /at .*?(core\/[^\s:)]+)/.exec(evidence);
  return frame ? ` (${frame[1]})` : '';
}

/**
 * Findings with the same key are one bug as far as a reader of the table can tell: the same kind
 * and message from the same place in Sello, whichever stage met it (inspect, sign and verify
 * share the reader, so one parser bug shows in all three).
 */
export function findingKey(f: Finding): string {
  const message = f.message.replace(/\d+/g, 'N').replace(/\s+/g, ' ').slice(0, 140);
  return `${f.kind}: ${message}${f.kind === 'error' ? sourceOf(f.evidence) : ''}`;
}

/** Writes the mutant (and the signed output pdfsig or qpdf rejected) with a .txt; returns the mutant's path. */
export function saveFinding(dir: string, seed: number, mutant: Mutant, record: MutantRecord, output?: Buffer): string {
  const base = path.join(dir, `${String(mutant.index).padStart(5, '0')}-${mutant.mutation.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`);
  writeFileSync(`${base}.pdf`, mutant.bytes);
  if (output) writeFileSync(`${base}-signed.pdf`, output);
  const lines = [
    `mutant ${mutant.index} of campaign seed ${seed}`,
    `reproduce: FUZZ_SEED=${seed} FUZZ_ONLY=${mutant.index} npm run test:fuzz`,
    `seed file: ${mutant.seed.name} (${mutant.seed.bytes.length} bytes); mutant: ${mutant.bytes.length} bytes (${base}.pdf)`,
    ...mutant.details.map((d) => `mutation: ${d}`),
    `peak RSS: ${record.peakRssBytes === null ? 'n/a' : `${Math.round(record.peakRssBytes / 1024 / 1024)} MB`}; time: ${record.ms === null ? 'n/a' : `${Math.round(record.ms)} ms`}`,
    '',
    ...record.findings.flatMap((f) => [`## ${f.kind}${f.stage ? ` in ${f.stage}` : ''}: ${f.message}`, f.evidence, '']),
  ];
  writeFileSync(`${base}.txt`, lines.join('\n'));
  return `${base}.pdf`;
}
