import { type FileHandle, open } from 'node:fs/promises';
import { crc32, createInflate, type Inflate } from 'node:zlib';
import { ApiError } from '#shared/errors.ts';

/**
 * Checks a whole PNG before libvips decodes it: every critical chunk inside the file with its CRC,
 * the image data a complete zlib stream (Adler-32 included) holding at least the rows the header
 * declares, and an IEND at the end.
 *
 * Why not leave it to libpng: libvips keeps one error state for the whole process, and when
 * several pipelines fail at once a damaged PNG can come out as "Unknown error", with another
 * request's message, or even as a success with made-up rows. Checked here, a damaged PNG is
 * refused the same way however many requests run. The zlib data is inflated in pieces and thrown
 * away, and stops past the declared size: the check needs a few kilobytes of memory at most.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const critical: ReadonlySet<string> = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND']);
const PIECE = 64 * 1024;
const channelsOf: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7: x start, y start, x step, y step of each pass. */
const adam7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

const damaged = (why: string) => new ApiError('invalid_source_file', `The PNG is damaged: ${why}.`);

/** Bytes of filtered image data the header declares: one filter byte and the packed pixels of each row. */
export function pngDataBytes(ihdr: Buffer): number {
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitsPerPixel = ihdr[8]! * (channelsOf[ihdr[9]!] ?? 0);
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bitsPerPixel) / 8)) : 0);
  if (ihdr[12] !== 1) return rows(width, height);
  return adam7.reduce(
    (sum, [x, y, dx, dy]) => sum + rows(Math.ceil((width - x) / dx), Math.ceil((height - y) / dy)),
    0,
  );
}

/** Inflates IDAT data as it comes, counting what it yields and stopping once the declared size is reached. */
class ImageData {
  readonly #inflate: Inflate = createInflate();
  readonly #finished: Promise<void>;
  #produced = 0;
  #enough = false;

  constructor(expected: number) {
    this.#finished = new Promise((resolve, reject) => {
      this.#inflate.on('data', (chunk: Buffer) => {
        this.#produced += chunk.length;
        if (this.#produced > expected && !this.#enough) {
          // Data past the declared rows is ignored by decoders (a warning of libpng): no need to inflate it.
          // Up to the declared size the stream is read to its end, so that its Adler-32 is checked.
          this.#enough = true;
          resolve();
          this.#inflate.destroy();
        }
      });
      this.#inflate.on('error', () =>
        reject(damaged('its compressed image data is corrupt (zlib or Adler-32 error)')),
      );
      this.#inflate.on('end', () => {
        if (this.#produced < expected)
          reject(damaged('its image data holds fewer rows than its header declares'));
        else resolve();
      });
    });
    this.#finished.catch(() => {});
  }

  get enough(): boolean {
    return this.#enough;
  }

  async write(bytes: Buffer): Promise<void> {
    if (this.#enough || this.#inflate.destroyed) return;
    if (!this.#inflate.write(bytes)) {
      await Promise.race([new Promise((resolve) => this.#inflate.once('drain', resolve)), this.#finished]);
    }
  }

  finish(): Promise<void> {
    if (!this.#enough && !this.#inflate.destroyed) this.#inflate.end();
    return this.#finished;
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const { buffer, bytesRead } = await file.read(Buffer.alloc(length), 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** Refuses (400 invalid_source_file) a PNG file that libpng would not read to its end. */
export async function assertCompletePngFile(path: string): Promise<void> {
  const file = await open(path);
  try {
    const size = (await file.stat()).size;
    if (!(await readAt(file, 0, 8)).equals(SIGNATURE)) return; // not a PNG signature: libvips refuses it
    let data: ImageData | undefined;
    let at = 8;
    for (;;) {
      const head = await readAt(file, at, 8);
      if (head.length < 8) throw damaged('the file ends before its IEND chunk (it was cut short)');
      const length = head.readUInt32BE(0);
      const type = head.toString('latin1', 4, 8);
      const end = at + 8 + length + 4;
      if (length > 0x7fffffff || end > size) throw damaged(`its ${type} chunk runs past the end of the file`);
      if (type === 'IHDR' && length !== 13) throw damaged('its header chunk (IHDR) is not 13 bytes long');
      const isCritical = critical.has(type);
      let crc = crc32(head.subarray(4, 8));
      for (let offset = at + 8; offset < at + 8 + length && isCritical; offset += PIECE) {
        const piece = await readAt(file, offset, Math.min(PIECE, at + 8 + length - offset));
        crc = crc32(piece, crc);
        if (type === 'IHDR') data ??= new ImageData(pngDataBytes(piece));
        if (type === 'IDAT') await data?.write(piece);
      }
      if (isCritical && (await readAt(file, at + 8 + length, 4)).readUInt32BE(0) !== crc) {
        throw damaged(`the checksum (CRC) of its ${type} chunk does not match its contents`);
      }
      at = end;
      if (type === 'IEND') break;
    }
    if (!data) throw damaged('it has no header chunk (IHDR)');
    await data.finish();
  } finally {
    await file.close();
  }
}
