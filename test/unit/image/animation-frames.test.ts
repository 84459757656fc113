import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { assertEveryFrameWritten, mergedRuns } from '#shared/image/animation-frames.ts';
import { framesImage } from '#shared/image/frames.ts';

describe('finding the source frames an animation encoder merged, from the durations it wrote', () => {
  it('reads a duration that sums several delays as that many frames', () => {
    expect(mergedRuns([50, 50, 50, 50], [200])).toEqual([4]);
    expect(mergedRuns([80, 80, 80, 80, 80], [80, 160, 160])).toEqual([1, 2, 2]);
    expect(mergedRuns([100, 40, 60], [100, 40, 60])).toEqual([1, 1, 1]);
  });

  it('gives each written frame at least one source frame, zero-delay ones included', () => {
    expect(mergedRuns([100, 0, 100], [100, 100])).toEqual([1, 2]);
    expect(mergedRuns([100, 0, 100], [100, 0, 100])).toEqual([1, 1, 1]);
    expect(mergedRuns([0, 0, 0], [0])).toEqual([3]);
  });

  it('puts zero-delay frames left at the end into the last run', () => {
    expect(mergedRuns([100, 100, 0, 0], [100, 100])).toEqual([1, 3]);
  });

  it('answers undefined when the durations are no sums of the delays', () => {
    expect(mergedRuns([100, 100], [150, 50])).toBeUndefined();
    expect(mergedRuns([100, 100], [100, 100, 100])).toBeUndefined();
    expect(mergedRuns([100, 100, 100], [100, 100])).toBeUndefined();
    expect(mergedRuns([100], [])).toBeUndefined();
  });
});

describe('holding a written animation to its source', () => {
  it('refuses with a 4xx that names the frames kept when the file holds fewer than the source', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'frames-'));
    try {
      const path = join(dir, 'one.gif');
      await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c04020' } })
        .gif()
        .toFile(path);
      const refusal = await assertEveryFrameWritten(path, 'gif', 3, undefined).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({ code: 'unsupported_output_format' });
      expect((refusal as Error).message).toMatch(/kept 1 of 3\b.*ask for webp/);
      await expect(assertEveryFrameWritten(path, 'gif', 1, undefined)).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a stack of frames as one pipeline', () => {
  it('stays an animation of all its frames through a resize', async () => {
    const frames = ['#ff0000', '#00ff00', '#0000ff'].map((colour) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
        .raw()
        .toBuffer(),
    );
    const raw = {
      data: Buffer.concat(await Promise.all(frames)),
      width: 40,
      height: 30,
      channels: 3,
      frames: 3,
    } as const;
    const written = await framesImage(raw).resize(20).gif().toBuffer();
    const meta = await sharp(written, { animated: true }).metadata();
    expect([meta.pages, meta.width, meta.pageHeight]).toEqual([3, 20, 15]);
  });
});
