import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { convertImage } from '#shared/image/convert.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { mapNativeError, nativeErrorRules } from '#shared/native-errors.ts';
import { jpeg12 } from '../../corpus/jpeg12.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { convertOptions, ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

const sharpRules = nativeErrorRules.filter((rule) => rule.engine === 'sharp');

/** The raw error sharp throws, and what the table makes of it. */
async function mapped(run: () => Promise<unknown>): Promise<{ raw: string; error: ApiError }> {
  const raw = await run().then(
    () => {
      throw new Error('expected sharp to fail');
    },
    (error: unknown) => error as Error,
  );
  try {
    mapNativeError('sharp', raw);
  } catch (error) {
    if (error instanceof ApiError) return { raw: raw.message, error };
  }
  throw new Error(`no rule for: ${raw.message}`);
}

const halfOf = async (format: ImageInputFormat) => {
  const whole = await fixtures.pattern(format);
  return fixtures.save(`half.${format}`, whole.subarray(0, Math.floor(whole.length / 2)));
};

const cases = {
  'a WebP cut in half (corrupt header)': async () => sharp(await halfOf('webp')).metadata(),
  'a TIFF cut in half (unsupported format)': async () => sharp(await halfOf('tiff')).metadata(),
  'a PNG cut in half (libpng read error)': async () =>
    sharp(await halfOf('png'), { failOn: 'error' })
      .png()
      .toBuffer(),
  'a WebP whose alpha chunk names no known compression (pixels unreadable)': async () => {
    const webp = await sharp({
      create: { width: 48, height: 32, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } },
    })
      .webp({ quality: 80 })
      .toBuffer();
    const alpha = webp.indexOf('ALPH');
    webp[alpha + 8] = 0x03; // compression method 3: only 0 (none) and 1 (lossless) exist
    return sharp(webp, { failOn: 'error' }).raw().toBuffer();
  },
  'a JPEG whose quantization tables are turned into comments (table not defined)': async () => {
    const jpeg = Buffer.from(await fixtures.pattern('jpg'));
    const dqt = Buffer.from([0xff, 0xdb]);
    for (let at = jpeg.indexOf(dqt); at >= 0; at = jpeg.indexOf(dqt, at + 2)) jpeg[at + 1] = 0xfe;
    return sharp(jpeg, { failOn: 'error' }).raw().toBuffer();
  },
  'a 12-bit JPEG (precision not supported)': async () =>
    sharp(
      jpeg12(2, 2, (x, y) => 1000 * (x + 2 * y)),
      { failOn: 'error' },
    )
      .png()
      .toBuffer(),
  'a PNG declaring 100000 × 100000 (pixel limit)': async () => {
    const bomb = Buffer.from(await fixtures.pattern('png'));
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    return sharp(bomb).metadata();
  },
  'a 16384 px wide WebP (too large for the format)': async () =>
    sharp(await fixtures.pattern('png'))
      .resize(16_384, 1, { fit: 'fill' })
      .webp()
      .toBuffer(),
};

describe('sharp rules of the native-error table, each met by a real failure', () => {
  it.each(Object.entries(cases))('%s', async (_name, run) => {
    const { raw, error } = await mapped(run);
    expect(error.code).toMatch(/^(invalid_source_file|unsupported_output_format)$/);
    expect(error.message).not.toMatch(/\/tmp|vips|sharp|libpng/i);
    expect(sharpRules.some((rule) => rule.pattern.test(raw) && rule.message === error.message)).toBe(true);
  });

  it('every sharp rule is met by one of the failures above', async () => {
    const met = new Set<number>();
    for (const run of Object.values(cases)) {
      const { raw } = await mapped(run);
      met.add(sharpRules.findIndex((rule) => rule.pattern.test(raw)));
    }
    expect([...met].sort()).toEqual(sharpRules.map((_rule, index) => index));
  });

  it('answers unsupported_output_format for a result too wide for WebP, through the conversion', async () => {
    const path = await fixtures.save('wide.png', await fixtures.pattern('png'));
    const error = await convertImage(
      { path, format: 'png' },
      convertOptions({ outputFormat: 'webp', width: 16_384, height: 1, fit: 'fill', icoSizes: [16] }),
      workspace,
    ).catch((caught: unknown) => caught);
    expect((error as ApiError).code).toBe('unsupported_output_format');
  });

  it('leaves an unknown sharp failure a 500', () => {
    expect(() => mapNativeError('sharp', new Error('something else entirely'))).toThrow(
      'something else entirely',
    );
  });
});
