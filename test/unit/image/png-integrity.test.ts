import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { assertCompletePngFile } from '#shared/image/png-integrity.ts';
import { damagedPngs } from '../../corpus/images.ts';
import { ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
beforeAll(() => fixtures.open());
afterAll(() => fixtures.close());

async function verdict(name: string, png: Buffer): Promise<string> {
  try {
    await assertCompletePngFile(await fixtures.save(name, png));
    return 'complete';
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

const noise = (width: number, height: number, channels: 1 | 2 | 3 | 4) => {
  const raw = Buffer.alloc(width * height * channels);
  for (let i = 0; i < raw.length; i += 1) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width, height, channels } });
};

describe('PNG completeness check', () => {
  it.each([
    ['8-bit RGB', () => noise(37, 23, 3).png()],
    ['8-bit RGBA, interlaced (Adam7)', () => noise(37, 23, 4).png({ progressive: true })],
    ['1-pixel interlaced', () => noise(1, 1, 3).png({ progressive: true })],
    ['16-bit grey', () => noise(19, 7, 1).toColourspace('grey16').png()],
    ['grey with alpha', () => noise(19, 7, 2).png()],
    ['2-bit palette', () => noise(33, 9, 3).png({ palette: true, colours: 4 })],
    [
      '1-bit palette, interlaced',
      () => noise(33, 9, 3).png({ palette: true, colours: 2, progressive: true }),
    ],
  ])('passes a sound %s PNG', async (name, make) => {
    expect(await verdict(`${name}.png`, await make().toBuffer())).toBe('complete');
  });

  it('passes a PNG whose ancillary chunk has a bad CRC (readers only warn)', async () => {
    const png = (await damagedPngs()).find((item) => item.name.includes('ancillary'));
    expect(await verdict('ancillary.png', png!.bytes)).toBe('complete');
  });

  it('refuses every damaged PNG of the corpus with 400 invalid_source_file, saying what is wrong', async () => {
    const damaged = (await damagedPngs()).filter((item) => !item.size && !item.name.includes('ancillary'));
    const answers = await Promise.all(damaged.map((item, index) => verdict(`${index}.png`, item.bytes)));
    expect(answers).toEqual(
      damaged.map(() => expect.stringMatching(/^invalid_source_file: The PNG is damaged: /)),
    );
  });
});
