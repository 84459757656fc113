import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { decodeHeicImage } from '#shared/image/heic.ts';
import { ImageFixtures, quadrants } from './fixtures.ts';

const fixtures = new ImageFixtures();
let heic: Buffer;

beforeAll(async () => {
  heic = await fixtures.pattern('heic');
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every way a library could print: the streams and the console. */
function watchOutput(): () => unknown[][] {
  const spies = [
    vi.spyOn(process.stdout, 'write'),
    vi.spyOn(process.stderr, 'write'),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((name) => vi.spyOn(console, name)),
  ];
  return () => spies.flatMap((spy) => spy.mock.calls);
}

const accept = () => undefined;

describe('HEIC decoding', () => {
  it('decodes the primary image upright, as RGBA', async () => {
    const pixels = await decodeHeicImage(heic, 0, accept);
    expect(pixels).toMatchObject({ width: 64, height: 48, channels: 4 });
    expect(pixels.data.length).toBe(64 * 48 * 4);
    const at = (x: number, y: number) => [...pixels.data.subarray((y * 64 + x) * 4, (y * 64 + x) * 4 + 3)];
    for (const [x, y, colour] of [
      [8, 8, quadrants.topLeft],
      [56, 8, quadrants.topRight],
      [8, 40, quadrants.bottomLeft],
      [56, 40, quadrants.bottomRight],
    ] as const) {
      for (const [channel, value] of at(x, y).entries()) {
        expect(Math.abs(value - colour[channel]!)).toBeLessThan(40);
      }
    }
  });

  it('lets the caller refuse the size before any pixel is decoded', async () => {
    const sizes: unknown[] = [];
    const refusal = new ApiError('invalid_source_file', 'too large');
    const error = await decodeHeicImage(heic, 0, (size) => {
      sizes.push(size);
      throw refusal;
    }).catch((caught: unknown) => caught);
    expect(error).toBe(refusal);
    expect(sizes).toEqual([{ width: 64, height: 48 }]);
  });

  it.each([
    ['cut inside its container', (bytes: Buffer) => bytes.subarray(0, 200)],
    ['cut inside its pixel data', (bytes: Buffer) => bytes.subarray(0, bytes.length - 50)],
  ])('refuses a HEIC %s with invalid_source_file, printing nothing', async (_name, damage) => {
    const printed = watchOutput();
    const error = await decodeHeicImage(damage(heic), 0, accept).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('invalid_source_file');
    expect(printed()).toEqual([]);
  });

  it('decodes again after refusing a damaged file', async () => {
    await decodeHeicImage(heic.subarray(0, heic.length - 50), 0, accept).catch(() => undefined);
    expect((await decodeHeicImage(heic, 0, accept)).width).toBe(64);
  });
});
