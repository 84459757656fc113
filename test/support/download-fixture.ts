import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SourceOptions } from '#shared/source/download.ts';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from './fixture-server.ts';

/**
 * What the download tests share: a loopback fixture server, a small PNG, a fresh workspace per
 * test, a path of its own for every route, and the options of a free caller accepting PNG up to
 * 1000 bytes. Registers its hooks in the calling test file.
 */
export function downloadFixture() {
  const server = new FixtureServer();
  let png = Buffer.alloc(0);
  let workspace: Workspace;
  let counter = 0;

  beforeAll(async () => {
    await server.start();
    png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#3060c0' } })
      .png()
      .toBuffer();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    workspace = new Workspace();
  });
  afterEach(() => workspace.dispose());

  return {
    server,
    png: () => png,
    workspace: () => workspace,
    /** A path no other test of the file uses. */
    path: (name: string) => {
      counter += 1;
      return `/${counter}/${name}`;
    },
    options: (extra: Partial<SourceOptions> = {}): SourceOptions => ({
      workspace,
      maxBytes: 1000,
      tier: 'free',
      accept: ['png'],
      allowPrivate: true,
      timeoutMs: 30_000,
      ...extra,
    }),
  };
}
