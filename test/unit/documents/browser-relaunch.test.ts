import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureChromium } from '../../support/browser.ts';

/**
 * The render's browser with the real Chromium behind a launcher that fails its first start, as a
 * loaded machine can: the request is still rendered, by a second launch, never answered 500.
 */
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'browser-relaunch-'));
  const real = await ensureChromium();
  const launcher = join(dir, 'chromium');
  const count = join(dir, 'launches');
  await writeFile(
    launcher,
    [
      '#!/bin/sh',
      `echo x >> '${count}'`,
      `if [ "$(wc -l < '${count}')" -eq 1 ]; then exit 1; fi`,
      `exec '${real}' "$@"`,
      '',
    ].join('\n'),
  );
  await chmod(launcher, 0o755);
  vi.stubEnv('CHROMIUM_EXECUTABLE', launcher);
  vi.resetModules();
});
afterAll(async () => {
  const { discardBrowser } = await import('#shared/documents/browser-launch.ts');
  await discardBrowser();
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('the browser a render gets', () => {
  it('is launched again when its first launch fails', async () => {
    const { withRenderedPage } = await import('#shared/documents/browser-render.ts');
    const title = await withRenderedPage(
      {
        content: { kind: 'html', html: '<title>Second launch</title><p>ok</p>' },
        javascript: false,
        waitFor: 'load',
        maxBytes: 1_000_000,
        allowPrivate: false,
        signal: new AbortController().signal,
      },
      (page) => page.title(),
    );
    expect(title).toBe('Second launch');
    expect((await readFile(join(dir, 'launches'), 'utf8')).trim().split('\n')).toHaveLength(2);
  }, 120_000);
});
