/**
 * The campaign's size and limits, from the environment. A developer's `npm run test:fuzz` runs
 * 3,000 mutants with a random (printed) seed within 10 minutes; CI (CI=true) runs 400 with a
 * fixed seed within 150 s, so that a red CI means the code changed, not that the dice did.
 */
import { randomSeed } from './prng.js';

export interface FuzzConfig {
  seed: number;
  runs: number;
  /** FUZZ_ONLY: just these mutant indexes (a finding's reproduction). */
  only: number[] | null;
  /** No new mutant starts after this; the report says how many ran. */
  timeLimitMs: number;
  deadlineMs: number;
  maxRssBytes: number;
  /** The agent's PDF thread has 512 MB of heap (SELLO_PDF_MEMORY_MB): the same here. */
  maxHeapMb: number;
  children: number;
  checkers: number;
  corpusDir: string | undefined;
  ci: boolean;
}

/** The CI seed: issue 15. */
const CI_SEED = 15;

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${value}`);
  return n;
}

export function fuzzConfig(env: NodeJS.ProcessEnv): FuzzConfig {
  const ci = env.CI === 'true' || env.CI === '1';
  const only = env.FUZZ_ONLY ? env.FUZZ_ONLY.split(',').map((s) => int(s.trim(), 0)) : null;
  return {
    seed: int(env.FUZZ_SEED, ci ? CI_SEED : randomSeed()),
    runs: int(env.FUZZ_RUNS, ci ? 400 : 3_000),
    only,
    timeLimitMs: int(env.FUZZ_TIME_LIMIT_S, ci ? 150 : 600) * 1000,
    deadlineMs: int(env.FUZZ_DEADLINE_S, 10) * 1000,
    maxRssBytes: int(env.FUZZ_MAX_RSS_MB, 1024) * 1024 * 1024,
    maxHeapMb: int(env.FUZZ_MAX_HEAP_MB, 512),
    children: Math.max(1, int(env.FUZZ_CHILDREN, 2)),
    checkers: 2,
    corpusDir: env.SELLO_PDF_CORPUS || undefined,
    ci,
  };
}
