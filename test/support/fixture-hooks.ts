import { afterAll, beforeAll } from 'vitest';
import { Workspace } from '#shared/workspace.ts';

/**
 * Opens a test file's fixtures before its tests and closes them after, and hands back a workspace
 * the tests share, removed after them too.
 */
export function fixturesWithWorkspace(fixtures: {
  open(): Promise<unknown>;
  close(): Promise<unknown>;
}): Workspace {
  const workspace = new Workspace();
  beforeAll(() => fixtures.open());
  afterAll(async () => {
    await workspace.dispose();
    await fixtures.close();
  });
  return workspace;
}
