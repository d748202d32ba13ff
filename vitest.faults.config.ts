import { defineConfig } from 'vitest/config';

// `npm run test:faults` (issue 8): scripted faults against real `sello serve` processes. Long
// scenarios, one after the other in one file, so that the table at the end covers them all
// and the timings are not skewed by each other.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
