import { defineConfig } from 'vitest/config';

// `npm run test:fuzz` (issue 15, point 10): seeded mutants of the PDF corpus against core/pdf,
// each in a child process of its own (test/fuzz/). The campaign bounds its own time
// (FUZZ_TIME_LIMIT_S: 600 s, CI 150 s); the timeout here only catches a harness that hangs.
export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.test.ts'],
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
