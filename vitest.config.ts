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
    reporters: ['default'],
  },
});
