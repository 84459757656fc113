import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { type ImageCase, imageCorpus } from './images.ts';

const run = promisify(execFile);
const key = { 'x-api-key': SHARED_KEYS.enterprise };
/** Requests in flight at once: four times the two cores of the test machines. */
const CONCURRENCY = 8;

/**
 * ImageMagick's reading of the first frame: its size (an animation's canvas, which its first frame
 * may not cover), or undefined when it refuses the file.
 */
async function referenceReads(path: string): Promise<readonly [number, number] | undefined> {
  const size = /\.(gif|webp)$/.test(path) ? '%W %H' : '%w %h';
  try {
    const { stdout } = await run('convert', [
      '-limit',
      'memory',
      '64MiB',
      `${path}[0]`,
      '-format',
      size,
      'info:',
    ]);
    const [width, height] = stdout.trim().split(' ').map(Number);
    return width && height ? [width, height] : undefined;
  } catch {
    return undefined;
  }
}

/** How many frames ImageMagick reads in a file (it reads frame offsets and counts of GIF and WebP alike). */
async function referenceFrames(path: string): Promise<number> {
  const { stdout } = await run('identify', ['-limit', 'memory', '64MiB', '-format', '%n\n', path]);
  return Number(stdout.split('\n')[0]);
}

/** Runs `work` over `items` with at most `limit` at once. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/**
 * The differential corpus of images: every header variant and damaged file of test/corpus/images.ts
 * is read by ImageMagick, then sent to the service through the local gateway. When ImageMagick reads
 * it, the service converts it and the result decodes at the same size, an animation with as many
 * frames as ImageMagick reads in the source; when it does not, the service answers 4xx with the
 * contract's code; never 5xx, with 8 requests in flight.
 */
describe('image differential corpus against ImageMagick, through the local gateway', () => {
  const sources = new FixtureServer();
  let gateway: RunningGateway;
  let scratch: string;
  let cases: (ImageCase & {
    url: string;
    reference: readonly [number, number] | undefined;
    referenceFrames: number | undefined;
  })[];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'image-corpus-test-'));
    await sources.start();
    cases = await Promise.all(
      (await imageCorpus()).map(async (item, index) => {
        const path = join(scratch, `${index}.${item.format}`);
        await writeFile(path, item.bytes);
        const url = sources.serve(`/${index}.${item.format}`, item.bytes);
        const reference = await referenceReads(path);
        const animated = reference && (item.format === 'gif' || item.format === 'webp');
        return {
          ...item,
          url,
          reference,
          referenceFrames: animated ? await referenceFrames(path) : undefined,
        };
      }),
    );
    gateway = sharedGateway();
    // Writing the corpus runs ImageMagick, ffmpeg and libwebp's tools some sixty times.
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('matches the reference on every file, twice over, 8 requests at once', async () => {
    const requests = [...cases, ...cases];
    const answers = await pooled(requests, CONCURRENCY, async (item) => {
      const outputFormat = item.format === 'webp' || item.format === 'gif' ? 'webp' : 'png';
      const response = await postJson(
        `${gateway.url}/image-convert`,
        { sourceUrl: item.url, outputFormat },
        key,
      );
      const body = Buffer.from(await response.arrayBuffer());
      return { item, status: response.status, body };
    });
    for (const [index, { item, status, body }] of answers.entries()) {
      const context = `${item.name}: ${status} ${status === 200 ? '' : body.toString()}`;
      expect(status, context).toBeLessThan(500);
      if (item.reference || item.beyondReference) {
        expect(status, context).toBe(200);
        const meta = await sharp(body).metadata();
        expect([meta.width, meta.pageHeight ?? meta.height], context).toEqual([
          ...(item.reference ?? item.size!),
        ]);
        if (item.referenceFrames) {
          // Every frame the reference reads comes back, counted by the reference too.
          const path = join(scratch, `answer-${index}.webp`);
          await writeFile(path, body);
          expect(await referenceFrames(path), context).toBe(item.referenceFrames);
        }
      } else {
        expect(status, context).toBe(400);
        expect(JSON.parse(body.toString())).toMatchObject({ error: 'invalid_source_file' });
      }
    }
    // Sixty conversions through cold worker processes: room for a loaded machine.
  }, 300_000);

  it('knows what the reference reads in each file (the corpus has both sides)', () => {
    expect(cases.filter((item) => item.reference).length).toBeGreaterThanOrEqual(12);
    expect(cases.filter((item) => !item.reference && !item.beyondReference).length).toBeGreaterThanOrEqual(6);
    for (const item of cases.filter((each) => each.reference && each.size)) {
      expect(item.reference, item.name).toEqual(item.size);
    }
  });
});
