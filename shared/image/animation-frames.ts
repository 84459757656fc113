import { readFile, writeFile } from 'node:fs/promises';
import WebP from 'node-webpmux';
import sharp from 'sharp';
import { ApiError } from '#shared/errors.ts';

/**
 * Frames of a written image as a reader counts them: 1 for a still. Read from its bytes: libvips
 * caches what it read from a path, and the file may have been rewritten since.
 */
export async function countFrames(path: string): Promise<number> {
  const { pages } = await sharp(await readFile(path)).metadata();
  return pages ?? 1;
}

/**
 * How many source frames each written frame stands for. libwebp's animation encoder merges a frame
 * that shows no change into the frame before it (no change at all when lossless, none beyond the
 * quality's tolerance when lossy), and that frame's duration grows by the merged frame's delay. So
 * each written duration is the sum of a run of source delays: walking both timelines, each written
 * frame takes one source frame, then as many more as its duration holds; source frames of no delay
 * left at the end belong to the last run. Undefined when the durations are no such sums.
 */
export function mergedRuns(delays: readonly number[], durations: readonly number[]): number[] | undefined {
  const runs: number[] = [];
  let next = 0;
  let sourceTime = 0;
  let writtenTime = 0;
  for (const duration of durations) {
    if (next >= delays.length) return undefined;
    writtenTime += duration;
    const start = next;
    sourceTime += delays[next++] ?? 0;
    while (sourceTime < writtenTime && next < delays.length) sourceTime += delays[next++] ?? 0;
    if (sourceTime !== writtenTime) return undefined;
    runs.push(next - start);
  }
  const rest = delays.slice(next);
  if (runs.length === 0 || rest.some((delay) => delay !== 0)) return undefined;
  runs[runs.length - 1]! += rest.length;
  return runs;
}

/** A fully transparent lossless WebP: as a blended frame it leaves the canvas as it is. */
function clearFrame(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .webp({ lossless: true })
    .toBuffer();
}

/** What the source's animation says of its timing (libvips' reading). */
export interface SourceTiming {
  /** Milliseconds of each frame. */
  delays: readonly number[];
  /** Times the animation plays; 0 for ever. */
  loop: number;
}

/**
 * Puts back the frames libwebp's encoder merged, without encoding a pixel again. After a written
 * frame that stands for n source frames come n − 1 frames over its rectangle, fully transparent and
 * blended, each shown for its own source delay: the canvas stays as it was, as the source's
 * unchanged frames left it. The written frame's disposal moves to the last frame of its run. A
 * written still (every frame merged into one) first becomes a one-frame animation. Answers false,
 * leaving the file alone, when the written durations are not sums of the source's delays.
 */
export async function restoreMergedWebpFrames(path: string, timing: SourceTiming): Promise<boolean> {
  const bytes = await readFile(path);
  const image = new WebP.Image();
  await image.load(bytes);
  const written = image.hasAnim
    ? (image.frames ?? [])
    : [
        {
          ...(await WebP.Image.generateFrame({ buffer: bytes, x: 0, y: 0, blend: false, dispose: false })),
          width: image.width,
          height: image.height,
          delay: timing.delays.reduce((sum, delay) => sum + delay, 0),
        },
      ];
  const runs = mergedRuns(
    timing.delays,
    written.map((frame) => frame.delay ?? 0),
  );
  if (!runs) return false;

  const clear = new Map<string, Promise<Buffer>>();
  const frames = [];
  let source = 0;
  for (const [index, frame] of written.entries()) {
    const run = runs[index]!;
    const { x = 0, y = 0, width = image.width, height = image.height, dispose = false } = frame;
    frames.push(Object.assign(frame, { delay: timing.delays[source], dispose: run > 1 ? false : dispose }));
    for (let step = 1; step < run; step += 1) {
      const key = `${width}x${height}`;
      if (!clear.has(key)) clear.set(key, clearFrame(width, height));
      const buffer = await clear.get(key)!;
      const last = step === run - 1;
      const delay = timing.delays[source + step];
      frames.push(
        await WebP.Image.generateFrame({ buffer, x, y, delay, blend: true, dispose: last && dispose }),
      );
    }
    source += run;
  }
  // A simple still has no extended header, which an animation needs: clearing its (absent) EXIF adds one.
  if (!image.hasAnim && image.exif === undefined) image.exif = undefined;
  await writeFile(path, await image.save(null, { frames, loops: image.hasAnim ? undefined : timing.loop }));
  return true;
}

/**
 * Holds a written animation to its source: every frame of the source is in the file, or the request
 * fails rather than answer fewer. Frames libwebp's encoder merged are put back first.
 */
export async function assertEveryFrameWritten(
  path: string,
  target: 'gif' | 'webp',
  frames: number,
  timing: SourceTiming | undefined,
): Promise<void> {
  let written = await countFrames(path);
  if (written !== frames && target === 'webp' && timing && (await restoreMergedWebpFrames(path, timing))) {
    written = await countFrames(path);
  }
  if (written !== frames) {
    // Never a shorter animation answered 200: the caller is told, and can choose another target.
    throw new ApiError(
      'unsupported_output_format',
      `This animation cannot be written as ${target} with all its frames (the encoder kept ${written} of ${frames}): ask for ${target === 'gif' ? 'webp' : 'gif'}, or animated: false for the first frame.`,
    );
  }
}
