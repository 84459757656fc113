import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * `npm ci` with the machine's own npm and Node (which may be older than the Node 24 the project
 * installs): the project's .npmrc keeps npm to its errors, so the EBADENGINE warnings an older Node
 * draws (69 on Node 20: the project and each dependency that asks for a newer Node) are not shown.
 * A dry run in a copy of the manifest, the lock file and .npmrc: it resolves the whole tree as
 * `npm ci` does, without installing anything.
 */
it('npm ci prints no EBADENGINE warning with the machine’s own Node', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'npm-quiet-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc'])
      await copyFile(file, join(folder, file));
    // The machine's npm and Node, not the project's: node_modules/.bin left out of PATH.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .join(delimiter);
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: folder, env: { PATH: path, HOME: process.env.HOME ?? folder }, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(`${stdout}${stderr}`).not.toMatch(/EBADENGINE/);
    expect(stdout).toMatch(/^add zod /m);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}, 120_000);
