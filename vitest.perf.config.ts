import { defineConfig } from 'vitest/config';

/**
 * Wall-clock, throughput and memory measurements: `npm run test:perf`, on a quiet machine. They
 * stay out of `npm test`, whose answers must not depend on the machine's load.
 */
export default defineConfig({
  test: {
    include: ['test/perf/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { LOG_LEVEL: 'silent', SOURCE_ALLOW_PRIVATE: 'true' },
  },
});
