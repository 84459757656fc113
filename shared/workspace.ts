import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private temporary folder for one request. Created on first use, removed when the request ends
 * (after the answer has been streamed, and on failure too).
 */
export class Workspace {
  #dir: Promise<string> | undefined;
  #disposed = false;

  async dir(): Promise<string> {
    if (this.#disposed) throw new Error('workspace already disposed');
    this.#dir ??= mkdtemp(join(tmpdir(), 'fca-'));
    return this.#dir;
  }

  /** A path inside the workspace; `name` is ours, never the caller's. */
  async file(name: string): Promise<string> {
    if (name.includes('/') || name.includes('\\') || name.startsWith('.'))
      throw new Error(`bad file name ${name}`);
    return join(await this.dir(), name);
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    if (!this.#dir) return;
    const dir = await this.#dir.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
