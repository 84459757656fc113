import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { planVideo } from '#shared/media/convert-video.ts';
import { boundedOutputSize, maxFrameSide } from '#shared/media/frame-bounds.ts';
import type { MediaInput } from '#shared/media/job.ts';
import { requireStream } from '#shared/media/limits.ts';
import type { MediaInfo, StreamInfo } from '#shared/media/probe.ts';
import { planThumbnail } from '#shared/media/thumbnail.ts';

const input: MediaInput = { path: '/srv/job/source', format: 'avi', baseName: 'clip' };
const video = (width: number, height: number, extra: Partial<StreamInfo> = {}): StreamInfo => ({
  type: 'video',
  codec: 'mjpeg',
  width,
  height,
  fps: 25,
  index: 0,
  ...extra,
});
const info = (...streams: StreamInfo[]): MediaInfo => ({
  container: 'avi',
  durationSeconds: 2,
  sizeBytes: 1000,
  bitRate: 8000,
  streams,
});

const refusal = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

const scaleOf = (options: readonly string[]) => {
  const filters = options[options.indexOf('-vf') + 1] ?? '';
  return /scale=(\d+):(\d+)/.exec(filters)?.slice(1).map(Number);
};

describe('video frames in: at most 8192 on either side, checked before any work', () => {
  it.each([
    [16_000, 16_000],
    [8193, 16],
    [16, 8193],
  ])('a %i × %i stream answers 400 invalid_source_file naming the limit', (width, height) => {
    const error = refusal(() => requireStream(info(video(width, height)), 'video'));
    expect(error).toMatchObject({ code: 'invalid_source_file' });
    expect(error.message).toContain(`${width} × ${height}`);
    expect(error.message).toContain('8192 × 8192');
  });

  it('a video stream the probe could not size (its decoder refused frames over the bound) is refused', () => {
    const error = refusal(() => requireStream(info(video(0, 0)), 'video'));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toMatch(/could not be read: .* larger than 8192 × 8192 pixels/);
  });

  it('a second video stream over the bound is refused too', () => {
    const streams = [video(160, 120), video(16_000, 16_000, { index: 1 })];
    expect(refusal(() => requireStream(info(...streams), 'video')).code).toBe('invalid_source_file');
  });

  it('8192 × 8192 itself is read', () => {
    expect(requireStream(info(video(maxFrameSide, maxFrameSide)), 'video').width).toBe(8192);
  });

  it('planning a conversion or a thumbnail of an oversized source refuses it', () => {
    const huge = info(video(16_000, 16_000));
    expect(refusal(() => planVideo(input, huge, { outputFormat: 'webm' }, '/out.webm')).code).toBe(
      'invalid_source_file',
    );
    expect(refusal(() => planThumbnail(input, huge, { outputFormat: 'png' }, '/out.png')).code).toBe(
      'invalid_source_file',
    );
  });
});

describe('video frames out: both sides bounded, not only the one asked', () => {
  it('a 16 × 32 clip asked for width 7680 (7680 × 15360) answers 400 validation_failed with the largest width that fits', () => {
    const error = refusal(() =>
      planVideo(input, info(video(16, 32)), { outputFormat: 'webm', width: 7680 }, '/out.webm'),
    );
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect(error.message).toMatch(/^width: .*7680 × 15360 pixels, over the limit of 8192 pixels/);
    expect(error.message).toContain('at most 4096');
  });

  it('the largest width named fits: 4096 makes 4096 × 8192', () => {
    const plan = planVideo(input, info(video(16, 32)), { outputFormat: 'mp4', width: 4096 }, '/o.mp4');
    expect(scaleOf(plan.job.outputOptions)).toEqual([4096, 8192]);
  });

  it('VP9 holds fewer pixels a frame than the side bound: 4096 × 8192 to webm names the width VP9 writes', () => {
    const error = refusal(() =>
      planVideo(input, info(video(16, 32)), { outputFormat: 'webm', width: 4096 }, '/o.webm'),
    );
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect(error.message).toMatch(/^width: .*VP9 \(webm\).*at most 4072\.$/);
    const plan = planVideo(input, info(video(16, 32)), { outputFormat: 'webm', width: 4072 }, '/o.webm');
    expect(scaleOf(plan.job.outputOptions)).toEqual([4072, 8144]);
  });

  it('a height that makes the width too large is refused the same way', () => {
    const error = refusal(() =>
      planVideo(input, info(video(32, 16)), { outputFormat: 'mp4', height: 7680 }, '/out.mp4'),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/^height: .*15360 × 7680/);
  });

  it('a pixel aspect that stretches the frame past the bound is scaled down to fit, aspect kept', () => {
    // 4000 × 100 pixels four times as wide as tall show as 16000 × 100: nothing was asked, so nothing is refused.
    const stretched = video(4000, 100, { pixelAspect: 4 });
    const plan = planVideo(input, info(stretched), { outputFormat: 'mp4' }, '/out.mp4');
    expect(scaleOf(plan.job.outputOptions)).toEqual([8192, 50]);
  });

  it('a thumbnail width that makes the height too large is refused', () => {
    const error = refusal(() =>
      planThumbnail(input, info(video(16, 2000)), { outputFormat: 'png', width: 3840 }, '/o.png'),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('3840 × 480000');
  });

  it('a rotated frame is bounded as it is shown', () => {
    // 2000 × 16 turned a quarter shows as 16 × 2000: width 3840 makes it 480000 high.
    const turned = video(2000, 16, { rotation: 90 });
    expect(
      refusal(() => planThumbnail(input, info(turned), { outputFormat: 'jpg', width: 3840 }, '/o.jpg')).code,
    ).toBe('validation_failed');
    expect(() =>
      planThumbnail(input, info(video(2000, 16)), { outputFormat: 'jpg', width: 3840 }, '/o.jpg'),
    ).not.toThrow();
  });

  it('sizes inside the bound pass unchanged', () => {
    expect(boundedOutputSize({ width: 8192, height: 8192 }, { width: 8192 })).toEqual({
      width: 8192,
      height: 8192,
    });
  });
});
