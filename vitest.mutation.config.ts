import { defineConfig } from 'vitest/config';

/**
 * The tests `npm run mutation` runs against each mutant: the in-process tests of the modules it
 * mutates (source download and address checks, the HTTP stack, auth, job acceptance, callbacks and
 * webhooks). Tests through the local gateway run its code in child processes, where a mutant is not
 * switched on, so they are left out here; they still run in `npm test`.
 */
export default defineConfig({
  test: {
    include: [
      'test/unit/source/**/*.test.ts',
      'test/unit/http/**/*.test.ts',
      'test/unit/auth/**/*.test.ts',
      'test/unit/jobs/**/*.test.ts',
      'test/integration/source-*.test.ts',
    ],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { LOG_LEVEL: 'silent', SOURCE_ALLOW_PRIVATE: 'true' },
  },
});
