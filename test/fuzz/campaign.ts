/**
 * A fuzz campaign: mutants made one by one, run by a few long-lived children, each success
 * judged by pdfsig and qpdf on the side (at most `checkers` at a time, and at most twice that
 * many waiting, so that memory stays flat however fast the children go). Stops starting new
 * mutants at the time limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FuzzConfig } from './config.js';
import { judgeSignedOutput } from './external-checks.js';
import { saveFinding, type Finding, type MutantRecord } from './findings.js';
import { FuzzChildProcess, type ChildVerdict } from './fuzz-child-process.js';
import { makeMutant, type Mutant } from './mutate.js';
import type { InitMessage } from './protocol.js';
import type { Seed } from './seeds.js';

export interface CampaignResult {
  records: MutantRecord[];
  planned: number;
  elapsedMs: number;
  stoppedByTimeLimit: boolean;
  childStarts: number;
  /** Successes judged by pdfsig and qpdf. */
  judged: number;
  /** Time spent by the children on mutants, and by pdfsig and qpdf, summed over all of them. */
  childMs: number;
  checkMs: number;
}

const MB = 1024 * 1024;

function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

function findingOfFailure(v: Exclude<ChildVerdict, { kind: 'done' }>): Finding {
  const [head = ''] = v.detail.split('\n');
  const fatal = /FATAL ERROR: [^\n]*|RangeError: [^\n]*|Error: [^\n]*/.exec(v.detail)?.[0];
  return { kind: v.kind, stage: v.stage, message: fatal ? `${head.replace(/:$/, '')}: ${fatal}` : head, evidence: v.detail };
}

function recordOf(mutant: Mutant, verdict: ChildVerdict, maxRssBytes: number): MutantRecord {
  const base = { index: mutant.index, seedName: mutant.seed.name, mutation: mutant.mutation, details: mutant.details };
  if (verdict.kind !== 'done') return { ...base, outcome: 'finding', findings: [findingOfFailure(verdict)], peakRssBytes: null, ms: null };
  const r = verdict.result;
  const findings: Finding[] = r.outcomes.flatMap((o) => (o.result === 'finding' ? [{ kind: 'error' as const, stage: o.stage, message: o.error, evidence: o.stack }] : []));
  if (r.peakRssBytes > maxRssBytes) {
    findings.push({ kind: 'memory', stage: null, message: `peak resident memory ${Math.round(r.peakRssBytes / MB)} MB, above the limit of ${Math.round(maxRssBytes / MB)} MB`, evidence: '' });
  }
  const sign = r.outcomes.find((o) => o.stage === 'sign');
  const outcome = findings.length > 0 ? 'finding' : sign?.result === 'ok' ? 'signed, valid' : sign?.result === 'refused' ? `refused: ${sign.code}` : 'finding';
  return { ...base, outcome, findings, peakRssBytes: r.peakRssBytes, ms: r.ms };
}

export async function runCampaign(
  cfg: FuzzConfig,
  seeds: readonly Seed[],
  bomb: Buffer,
  init: InitMessage,
  findingsDir: string,
  log: (line: string) => void,
): Promise<CampaignResult> {
  const indexes = cfg.only ?? Array.from({ length: cfg.runs }, (_, i) => i);
  const limits = { deadlineMs: cfg.deadlineMs, maxRssBytes: cfg.maxRssBytes, maxHeapMb: cfg.maxHeapMb };
  const children = Array.from({ length: Math.min(cfg.children, indexes.length) }, () => new FuzzChildProcess(init, limits));
  const check = limiter(cfg.checkers);
  const checkDir = mkdtempSync(path.join(tmpdir(), 'sello-fuzz-check-'));
  const pending = new Set<Promise<void>>();
  const records: MutantRecord[] = [];
  const t0 = performance.now();
  let next = 0;
  let judged = 0;
  let childMs = 0;
  let checkMs = 0;
  let stoppedByTimeLimit = false;

  const finish = (mutant: Mutant, record: MutantRecord, output?: Buffer): void => {
    if (record.findings.length > 0) record.file = saveFinding(findingsDir, cfg.seed, mutant, record, output);
    records.push(record);
    if (records.length % 100 === 0 || cfg.only) {
      const found = records.filter((r) => r.findings.length > 0).length;
      log(`[fuzz] ${records.length}/${indexes.length} mutants in ${Math.round((performance.now() - t0) / 1000)} s; ${found} with findings`);
    }
  };

  const judge = (mutant: Mutant, record: MutantRecord, output: Buffer, rewritten: number[]): Promise<void> =>
    check(async () => {
      const t = performance.now();
      const j = await judgeSignedOutput(checkDir, String(mutant.index), mutant.bytes, output, new Set(rewritten));
      checkMs += performance.now() - t;
      return j;
    }).then((j) => {
      judged++;
      if (j.problems.length > 0) {
        record.findings.push({ kind: 'rejected by pdfsig/qpdf', stage: 'sign', message: j.problems.join('; '), evidence: `pdfsig:\n${j.pdfsigText}\n\nqpdf --check:\n${j.qpdfText}` });
        record.outcome = 'finding';
      }
      finish(mutant, record, output);
    });

  // Set when one loop fails (a bug of the harness), so that the other stops too.
  let aborted = false;
  const work = async (child: FuzzChildProcess): Promise<void> => {
    try {
      await serve(child);
    } catch (err) {
      aborted = true;
      throw err;
    }
  };
  const serve = async (child: FuzzChildProcess): Promise<void> => {
    while (next < indexes.length && !aborted) {
      if (performance.now() - t0 > cfg.timeLimitMs) {
        stoppedByTimeLimit = true;
        return;
      }
      const mutant = makeMutant(cfg.seed, indexes[next++]!, seeds, bomb);
      const t = performance.now();
      const verdict = await child.run(mutant.index, mutant.bytes);
      childMs += performance.now() - t;
      const record = recordOf(mutant, verdict, cfg.maxRssBytes);
      const output = verdict.kind === 'done' && verdict.result.output ? Buffer.from(verdict.result.output) : null;
      if (!output) {
        finish(mutant, record);
        continue;
      }
      const p = judge(mutant, record, output, verdict.kind === 'done' ? verdict.result.rewritten : []).finally(() => pending.delete(p));
      // Its failure (a tool that cannot run) is raised by the race below or at the end.
      p.catch(() => undefined);
      pending.add(p);
      while (pending.size >= 2 * cfg.checkers) await Promise.race(pending);
    }
  };

  try {
    await Promise.all(children.map(work));
    await Promise.all(pending);
  } finally {
    // Also after a failure: no check may still be running in the folder about to go.
    await Promise.allSettled(pending);
    for (const c of children) c.stop();
    rmSync(checkDir, { recursive: true, force: true });
  }
  records.sort((a, b) => a.index - b.index);
  return {
    records,
    planned: indexes.length,
    elapsedMs: performance.now() - t0,
    stoppedByTimeLimit,
    childStarts: children.reduce((s, c) => s + c.starts, 0),
    judged,
    childMs,
    checkMs,
  };
}
