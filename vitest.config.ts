import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The service under test runs the ffmpeg and qpdf that ship: the layers' static builds (`npm run
 * layer:ffmpeg`, `npm run layer:qpdf`, which `npm test` runs first). Fixtures are made and answers
 * read by Debian's own ffmpeg and qpdf (test/support/reference-tools.ts).
 */
const layerBin = fileURLToPath(new URL('./.layers/ffmpeg/bin/', import.meta.url));
const qpdfLayerBin = fileURLToPath(new URL('./.layers/qpdf/bin/', import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Timings, throughput and memory depend on the machine: `npm run test:perf` (vitest.perf.config.ts).
    exclude: [...configDefaults.exclude, 'test/perf/**'],
    setupFiles: ['test/support/setup.ts'],
    // One local gateway for the files that need no settings of their own (sharedGateway()).
    globalSetup: ['test/support/shared-gateway.ts'],
    pool: 'forks',
    // Two files at a time, one a core: three were measured no faster (745 s against 647 s of tests)
    // and made timing-sensitive waits in the tests lose their races.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: {
      LOG_LEVEL: 'silent',
      SOURCE_ALLOW_PRIVATE: 'true',
      FFMPEG_PATH: `${layerBin}ffmpeg`,
      FFPROBE_PATH: `${layerBin}ffprobe`,
      QPDF_PATH: `${qpdfLayerBin}qpdf`,
    },
    // `npm test` runs `vitest run --coverage`: the local gateway and its Lambda workers run in child
    // processes of the tests; autoAttachSubprocess collects their V8 coverage too (test/support/setup.ts).
    coverage: {
      provider: 'v8',
      autoAttachSubprocess: true,
      include: ['shared/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts'],
      exclude: ['**/*.d.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'reports/coverage',
      // Below either, `npm test` fails (docs/testing.md has the figures measured).
      thresholds: { lines: 90, branches: 85 },
    },
  },
});
