import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { convertImage } from '#shared/image/convert.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { readImageMetadata } from '#shared/image/metadata.ts';
import { assertIntactPngHeader } from '#shared/image/png-header.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { convertOptions, ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

/** A copy of a PNG with its IHDR checksum flipped, and optionally its width rewritten too. */
function wrongChecksum(png: Buffer, width?: number): Buffer {
  const copy = Buffer.from(png);
  if (width !== undefined) copy.writeUInt32BE(width, 16);
  copy.writeUInt32BE(crc32(png.subarray(12, 29)) ^ 0xff, 29);
  return copy;
}

/** An ICO of one PNG entry, as modern icons store their large sizes. */
function icoOf(png: Buffer): Buffer {
  const header = Buffer.alloc(22);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(1, 4);
  header[6] = 64;
  header[7] = 48;
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18);
  return Buffer.concat([header, png]);
}

const convert = (path: string, format: ImageInputFormat) =>
  convertImage({ path, format }, convertOptions({ outputFormat: 'png', icoSizes: [16] }), workspace);

const failureOf = (run: () => Promise<unknown>) =>
  run().then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error,
  );

describe('the checksum of a PNG header chunk', () => {
  it('is what libvips cannot report: the pixels fail to load without a reason', async () => {
    const broken = wrongChecksum(await fixtures.pattern('png'));
    const error = (await failureOf(() => sharp(broken, { failOn: 'error' }).png().toBuffer())) as Error;
    expect(error.message).not.toMatch(/IHDR|CRC/);
  });

  it('accepts an intact header and leaves a first chunk that is no IHDR to libvips', async () => {
    const png = await fixtures.pattern('png');
    expect(() => assertIntactPngHeader(png)).not.toThrow();
    const renamed = Buffer.from(png);
    renamed.write('IHDX', 12, 'latin1');
    expect(() => assertIntactPngHeader(renamed)).not.toThrow();
    expect(() => assertIntactPngHeader(png.subarray(0, 20))).not.toThrow();
  });

  it.each([
    ['a wrong checksum', undefined],
    ['a rewritten width', 0x7f20],
  ])('refuses a PNG with %s before decoding: 400 invalid_source_file', async (_name, width) => {
    const path = await fixtures.save(
      `ihdr-${width}.png`,
      wrongChecksum(await fixtures.pattern('png'), width),
    );
    const error = await failureOf(() => convert(path, 'png'));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_source_file');
    expect((error as ApiError).message).toBe(
      'The PNG is damaged: the checksum of its header chunk (IHDR) does not match its contents.',
    );
  });

  it('leaves the pixel limit the first refusal of a PNG that claims too many pixels', async () => {
    const png = Buffer.from(await fixtures.pattern('png'));
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    const path = await fixtures.save('bomb.png', wrongChecksum(png));
    const error = await failureOf(() => convert(path, 'png'));
    expect((error as ApiError).message).toMatch(/100000 × 100000 pixels/);
  });

  it('still describes the header of such a PNG, which image-metadata reads without decoding', async () => {
    const path = await fixtures.save('ihdr-metadata.png', wrongChecksum(await fixtures.pattern('png')));
    const metadata = await readImageMetadata({ path, format: 'png', sizeBytes: 1 });
    expect([metadata.width, metadata.height]).toEqual([64, 48]);
  });

  it('refuses an ICO whose PNG image has a wrong checksum before decoding it', async () => {
    const path = await fixtures.save('ihdr.ico', icoOf(wrongChecksum(await fixtures.pattern('png'))));
    const error = await failureOf(() => convert(path, 'ico'));
    expect((error as ApiError).code).toBe('invalid_source_file');
    expect((error as ApiError).message).toMatch(/^The PNG image inside the ICO is damaged: /);
  });

  it('answers invalid_source_file for an ICO whose PNG image has a corrupt header', async () => {
    const png = Buffer.from(await fixtures.pattern('png'));
    png[25] = 7; // colour type 7 does not exist
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    const path = await fixtures.save('colour-type.ico', icoOf(png));
    const error = await failureOf(() => convert(path, 'ico'));
    expect((error as ApiError).code).toBe('invalid_source_file');
  });
});
