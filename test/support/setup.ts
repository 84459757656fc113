import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import '../../infra/local/install-awslambda.ts';

// With `--coverage`, vitest points NODE_V8_COVERAGE at a folder it reads after each test file.
// Node processes a test starts (the local gateway and its workers) get that folder under another
// name, so that Node does not write their coverage itself (it writes in place, and a read in the
// middle fails the run); the preload records it and writes each file whole (child-coverage.ts).
const preload = `--import=${new URL('./child-coverage.ts', import.meta.url).href}`;
if (process.env.NODE_V8_COVERAGE) {
  process.env.TEST_CHILD_COVERAGE_DIR = process.env.NODE_V8_COVERAGE;
  delete process.env.NODE_V8_COVERAGE;
  if (!process.env.NODE_OPTIONS?.includes(preload)) {
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${preload}`.trim();
  }
}

// The shared gateway (shared-gateway.ts) writes its coverage apart: what it wrote so far joins
// this file's, which vitest reads when the file ends. A file another worker moved first is gone.
const ownCoverage = process.env.TEST_CHILD_COVERAGE_DIR;
if (ownCoverage) {
  afterAll(() => {
    const { coverageDir } = inject('sharedGateway');
    mkdirSync(ownCoverage, { recursive: true });
    for (const name of readdirSync(coverageDir)) {
      if (!name.endsWith('.json')) continue;
      try {
        renameSync(join(coverageDir, name), join(ownCoverage, name));
      } catch {
        // Taken by the worker of another file, whose coverage now holds it.
      }
    }
  });
}
