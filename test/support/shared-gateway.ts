import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { SHARED_GATEWAY_SETTINGS, startLocalGateway } from './gateway.ts';

/**
 * vitest's global setup: one local gateway (`npm start`, worker isolation, SOURCE_ALLOW_PRIVATE)
 * for every test file that needs no settings of its own (`sharedGateway()`). Its warm workers serve
 * file after file, as a deployed function's warm instances serve request after request, so the
 * suite pays a function's cold start once instead of once per file.
 *
 * With coverage on, its processes write their V8 coverage into a folder of their own; each test
 * file's worker moves what is there into its own folder when the file ends (setup.ts), and vitest
 * merges it as it merges the coverage of the gateways a file starts itself.
 */
export default async function startSharedGateway(project: TestProject) {
  const coverageDir = await mkdtemp(join(tmpdir(), 'shared-gateway-coverage-'));
  const env: Record<string, string> = { ...project.config.env, ...SHARED_GATEWAY_SETTINGS };
  if (project.config.coverage.enabled) {
    env.TEST_CHILD_COVERAGE_DIR = coverageDir;
    env.NODE_OPTIONS = `--import=${new URL('./child-coverage.ts', import.meta.url).href}`;
  }
  const gateway = await startLocalGateway(env);
  project.provide('sharedGateway', { url: gateway.url, s3Endpoint: gateway.s3Endpoint, coverageDir });
  return async () => {
    await gateway.stop();
    await rm(coverageDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedGateway: { url: string; s3Endpoint: string; coverageDir: string };
  }
}
