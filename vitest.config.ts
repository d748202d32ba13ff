import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// `npm test`: unit and integration tests against real parts (HTTP on free ports,
// SQLite in temp folders, SoftHSM2 tokens, poppler). The PDF corpus runs separately
// in `npm run test:corpus` because it needs SELLO_PDF_CORPUS.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on child processes, HTTP, SQLite's fsync and timers rather than on the CPU,
    // so they overlap well. vitest's default (cores − 1) runs one file at a time on CI's 2 cores:
    // the whole suite took 677 s that way and 432 s with three workers on a 2-core machine.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    reporters: ['default'],
  },
});
