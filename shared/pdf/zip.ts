import { type FileHandle, open } from 'node:fs/promises';
import { Zip, ZipPassThrough } from 'fflate';

/**
 * A ZIP archive written entry by entry to a file: only the entry being added is in memory, never
 * the archive. Entries are stored, not deflated: PDFs, PNG, JPEG and WebP are compressed already.
 */
export class ZipFileWriter {
  readonly #handle: FileHandle;
  readonly #zip: Zip;
  readonly #names = new Set<string>();
  #pending: Uint8Array[] = [];
  #failure: Error | undefined;
  #finished = false;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
    this.#zip = new Zip((error, chunk) => {
      if (error) this.#failure ??= error;
      else this.#pending.push(chunk);
    });
  }

  static async create(path: string): Promise<ZipFileWriter> {
    return new ZipFileWriter(await open(path, 'w', 0o600));
  }

  async add(name: string, data: Uint8Array): Promise<void> {
    if (this.#names.has(name)) throw new Error(`duplicate zip entry ${name}`);
    this.#names.add(name);
    const entry = new ZipPassThrough(name);
    this.#zip.add(entry);
    entry.push(data, true);
    await this.#flush();
  }

  /** Writes the central directory and closes the file. */
  async finish(): Promise<void> {
    this.#zip.end();
    await this.#flush();
    this.#finished = true;
    await this.#handle.close();
  }

  /** Closes the file after a failure; the workspace removes it. */
  async abort(): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    this.#zip.terminate();
    await this.#handle.close();
  }

  async #flush(): Promise<void> {
    if (this.#failure) throw this.#failure;
    const chunks = this.#pending;
    this.#pending = [];
    for (const chunk of chunks) await this.#handle.write(chunk);
  }
}

/** Writes entries produced one at a time into a ZIP file, closing it on failure too. */
export async function writeZip(
  path: string,
  produce: (add: (name: string, data: Uint8Array) => Promise<void>) => Promise<void>,
): Promise<void> {
  const zip = await ZipFileWriter.create(path);
  try {
    await produce((name, data) => zip.add(name, data));
    await zip.finish();
  } catch (error) {
    await zip.abort();
    throw error;
  }
}
