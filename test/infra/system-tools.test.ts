import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../layers/layer.ts';

const run = promisify(execFile);
const script = join(projectRoot, 'scripts', 'install-system-tools.sh');

async function setup(env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run('bash', [script], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const testFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });

describe('system tools come from one setup step, never from a test', () => {
  it('npm test runs the setup step before anything else', () => {
    const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    expect(manifest.scripts['system-tools']).toBe('bash scripts/install-system-tools.sh');
    expect(manifest.scripts.test).toMatch(/^npm run test:setup && /);
    expect(manifest.scripts['test:shuffled']).toMatch(/^npm run test:setup && /);
    expect(manifest.scripts['test:setup']).toMatch(/^npm run system-tools && /);
  });

  it('finds every tool present once the step has run', async () => {
    const result = await setup({ SYSTEM_TOOLS_INSTALL: 'never' });
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('all present');
  });

  it('prints the exact install command and fails when it may not install', async () => {
    const result = await setup({ SYSTEM_TOOLS_INSTALL: 'never', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('system tools missing: chromium\n');
    expect(result.stderr).toContain(
      '  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium\n',
    );
  });

  it('no test file runs a package manager', () => {
    const installer = /['"`](?:apt-get|apt|dpkg|brew|yum|dnf|apk)['"`]\s*,|playwright\s+install/;
    const offenders = testFiles(join(projectRoot, 'test'))
      .filter((path) => installer.test(readFileSync(path, 'utf8')))
      .map((path) => relative(projectRoot, path));
    expect(offenders).toEqual([]);
  });
});
