import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { statusOf } from '#shared/http/errors.ts';
import { audioCodecFor, planAudio } from '#shared/media/convert-audio.ts';
import { displaySize, fitDimensions, planVideo } from '#shared/media/convert-video.ts';
import type { MediaInput } from '#shared/media/job.ts';
import {
  assertDurationWithinTier,
  assertWithinDuration,
  formatSeconds,
  requireStream,
} from '#shared/media/limits.ts';
import { type MediaInfo, mediaInfoFrom, type StreamInfo } from '#shared/media/probe.ts';
import {
  audioConvertBody,
  extractAudioBody,
  thumbnailBody,
  videoConvertBody,
} from '#shared/media/schemas.ts';
import { captureTime, planThumbnail } from '#shared/media/thumbnail.ts';
import { mediaRoutes } from '#shared/routes/media.ts';

const h264: StreamInfo = { type: 'video', codec: 'h264', width: 160, height: 120, fps: 25, index: 0 };
const aac: StreamInfo = { type: 'audio', codec: 'aac', sampleRate: 44100, channels: 2, index: 1 };
/** `null`: the file does not state its duration. */
const info = (streams: StreamInfo[], durationSeconds: number | null = 10): MediaInfo => ({
  container: 'mp4',
  durationSeconds: durationSeconds ?? undefined,
  sizeBytes: 1000,
  bitRate: 8000,
  streams,
});
const input: MediaInput = { path: '/srv/job/source', format: 'mp4', baseName: 'clip' };

/** The value after a flag in an option list, e.g. `-c:v` → `copy`. */
const optionAfter = (options: readonly string[], flag: string) => {
  const at = options.indexOf(flag);
  return at < 0 ? undefined : options[at + 1];
};

const catchError = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('fitDimensions: aspect kept, even numbers', () => {
  it.each([
    [{ width: 160, height: 120 }, 100, undefined, { width: 100, height: 76 }],
    [{ width: 160, height: 120 }, undefined, 61, { width: 82, height: 62 }],
    [{ width: 1920, height: 1080 }, 640, 640, { width: 640, height: 360 }],
    [{ width: 1080, height: 1920 }, 640, 640, { width: 360, height: 640 }],
    [{ width: 321, height: 181 }, undefined, undefined, { width: 322, height: 182 }],
    [{ width: 160, height: 120 }, 320, undefined, { width: 320, height: 240 }],
  ])('%o with width %s and height %s → %o', (source, width, height, expected) => {
    expect(fitDimensions(source, width, height)).toEqual(expected);
  });

  it('reads the size a player shows: turned for rotation, stretched for non-square pixels', () => {
    expect(displaySize({ ...h264, rotation: 90 })).toEqual({ width: 120, height: 160 });
    expect(displaySize({ ...h264, pixelAspect: 4 / 3 })).toEqual({ width: 160 * (4 / 3), height: 120 });
    expect(displaySize({ ...h264, width: undefined })).toBeUndefined();
  });
});

describe('audio plans', () => {
  it('copies a stream that fits and is not asked to change', () => {
    expect(audioCodecFor(aac, { outputFormat: 'm4a' })).toBe('copy');
    expect(audioCodecFor(aac, { outputFormat: 'aac', sampleRate: 44100, channels: 2 })).toBe('copy');
    expect(audioCodecFor(aac, { outputFormat: 'aac', start: 3, duration: 2 })).toBe('copy');
  });

  it('encodes when the container cannot hold the codec or a change is asked', () => {
    expect(audioCodecFor(aac, { outputFormat: 'mp3' })).toBe('libmp3lame');
    expect(audioCodecFor(aac, { outputFormat: 'aac', bitrate: 96 })).toBe('aac');
    expect(audioCodecFor(aac, { outputFormat: 'aac', channels: 1 })).toBe('aac');
    expect(audioCodecFor(aac, { outputFormat: 'wav' })).toBe('pcm_s16le');
    expect(audioCodecFor(aac, { outputFormat: 'flac' })).toBe('flac');
  });

  it('writes Ogg as Opus, or Vorbis for a sample rate Opus cannot run at', () => {
    expect(audioCodecFor(aac, { outputFormat: 'ogg' })).toBe('libopus');
    expect(audioCodecFor(aac, { outputFormat: 'ogg', sampleRate: 24000 })).toBe('libopus');
    expect(audioCodecFor(aac, { outputFormat: 'ogg', sampleRate: 44100 })).toBe('libvorbis');
  });

  it('maps only the first audio stream, cuts, and names the muxer', () => {
    const job = planAudio(
      input,
      info([h264, aac]),
      { outputFormat: 'm4a', start: 2, duration: 3 },
      '/srv/job/out',
    );
    expect(job.demuxer).toBe('mov');
    expect(job.inputOptions).toEqual(['-ss', '2']);
    expect(optionAfter(job.outputOptions, '-map')).toBe('0:1');
    expect(optionAfter(job.outputOptions, '-t')).toBe('3');
    expect(optionAfter(job.outputOptions, '-movflags')).toBe('+faststart');
    expect(optionAfter(job.outputOptions, '-f')).toBe('ipod');
    expect(job.expectedSeconds).toBe(3);
  });

  it('sets bitrate, rate and channels on a re-encode, and never a bitrate for lossless output', () => {
    const mp3 = planAudio(input, info([aac]), { outputFormat: 'mp3', bitrate: 128, channels: 1 }, '/o');
    expect(optionAfter(mp3.outputOptions, '-b:a')).toBe('128k');
    expect(optionAfter(mp3.outputOptions, '-ac')).toBe('1');
    const flac = planAudio(input, info([aac]), { outputFormat: 'flac', sampleRate: 48000 }, '/o');
    expect(flac.outputOptions).not.toContain('-b:a');
    expect(optionAfter(flac.outputOptions, '-ar')).toBe('48000');
  });
});

describe('video plans', () => {
  const plan = (options: Parameters<typeof planVideo>[2], streams = [h264, aac]) =>
    planVideo(input, info(streams), options, '/srv/job/out');

  it.each([
    ['mp4', 'copy', 'copy'],
    ['mov', 'copy', 'copy'],
    ['mkv', 'copy', 'copy'],
    ['webm', 'libvpx-vp9', 'libopus'],
    ['avi', 'mpeg4', 'libmp3lame'],
  ] as const)('h264 + aac → %s: video %s, audio %s', (outputFormat, videoCodec, audioCodec) => {
    const result = plan({ outputFormat });
    expect(result.videoCodec).toBe(videoCodec);
    expect(result.audioCodec).toBe(audioCodec);
  });

  it('re-encodes video for a resize, a new frame rate, an exact start or an explicit quality', () => {
    expect(plan({ outputFormat: 'mp4', width: 80 }).videoCodec).toBe('libx264');
    expect(plan({ outputFormat: 'mp4', fps: 10 }).videoCodec).toBe('libx264');
    expect(plan({ outputFormat: 'mp4', start: 1 }).videoCodec).toBe('libx264');
    expect(plan({ outputFormat: 'mp4', quality: 'high' }).videoCodec).toBe('libx264');
  });

  it('keeps copying when the asked values are what the source already has, or only a duration is asked', () => {
    expect(plan({ outputFormat: 'mkv', width: 160, fps: 25, duration: 2 }).videoCodec).toBe('copy');
  });

  it('scales to even dimensions and resets the pixel aspect', () => {
    const { job } = plan({ outputFormat: 'mp4', width: 100 });
    expect(optionAfter(job.outputOptions, '-vf')).toBe('scale=100:76,setsar=1');
    expect(optionAfter(job.outputOptions, '-crf')).toBe('23');
    expect(optionAfter(job.outputOptions, '-preset')).toBe('veryfast');
    expect(optionAfter(job.outputOptions, '-movflags')).toBe('+faststart');
  });

  it('uses VP9 in realtime mode, CRF per quality', () => {
    const low = plan({ outputFormat: 'webm', quality: 'low' }).job.outputOptions;
    const high = plan({ outputFormat: 'webm', quality: 'high' }).job.outputOptions;
    expect(optionAfter(low, '-deadline')).toBe('realtime');
    expect(optionAfter(low, '-cpu-used')).toBe('8');
    expect(optionAfter(low, '-row-mt')).toBe('1');
    expect(Number(optionAfter(low, '-crf'))).toBeGreaterThan(Number(optionAfter(high, '-crf')));
  });

  it('drops audio when muted or absent', () => {
    expect(plan({ outputFormat: 'mp4', mute: true }).job.outputOptions).toContain('-an');
    expect(plan({ outputFormat: 'mp4' }, [h264]).audioCodec).toBeUndefined();
  });

  it('copies a rotated stream only into a container that keeps the rotation', () => {
    const rotated = { ...h264, rotation: 90 };
    expect(plan({ outputFormat: 'mov' }, [rotated]).videoCodec).toBe('copy');
    const mkv = plan({ outputFormat: 'mkv', width: 60 }, [rotated]);
    expect(mkv.videoCodec).toBe('libx264');
    expect(optionAfter(mkv.job.outputOptions, '-vf')).toBe('scale=60:80,setsar=1');
  });

  it('tags copied HEVC as hvc1 for mp4', () => {
    expect(
      optionAfter(plan({ outputFormat: 'mp4' }, [{ ...h264, codec: 'hevc' }]).job.outputOptions, '-tag:v'),
    ).toBe('hvc1');
  });

  it('needs a video stream; a cover picture is none', () => {
    const cover: StreamInfo = { type: 'image', codec: 'mjpeg', width: 300, height: 300, index: 1 };
    expect(catchError(() => plan({ outputFormat: 'mp4' }, [aac, cover])).code).toBe('no_video_stream');
  });
});

describe('thumbnails', () => {
  it('captures at 10 % of the duration by default, and never past the last frame', () => {
    expect(captureTime(info([h264], 20), undefined)).toBe(2);
    expect(captureTime(info([h264], 20), 5)).toBe(5);
    expect(captureTime(info([h264], 2), 1.99)).toBeCloseTo(1.96, 5);
    expect(captureTime(info([h264], null), undefined)).toBe(0);
  });

  it('takes one frame and scales to the asked width', () => {
    const job = planThumbnail(input, info([h264]), { outputFormat: 'png', width: 64, at: 3 }, '/o');
    expect(job.inputOptions).toEqual(['-ss', '3']);
    expect(optionAfter(job.outputOptions, '-frames:v')).toBe('1');
    expect(optionAfter(job.outputOptions, '-vf')).toBe('scale=64:-2');
    expect(optionAfter(job.outputOptions, '-c:v')).toBe('png');
  });
});

describe('probe results', () => {
  it('reads streams, frame rates and cover pictures, with the duration falling back to the streams', () => {
    const parsed = mediaInfoFrom(
      {
        format: { format_name: 'mov,mp4', bit_rate: '128000.4', size: '5000' },
        streams: [
          {
            index: 0,
            codec_type: 'video',
            codec_name: 'h264',
            width: 1920,
            height: 1080,
            avg_frame_rate: '30000/1001',
            duration: '4.5',
            side_data_list: [{ rotation: -90 }],
          },
          {
            index: 1,
            codec_type: 'audio',
            codec_name: 'aac',
            sample_rate: '48000',
            channels: 2,
            bit_rate: '96000',
          },
          {
            index: 2,
            codec_type: 'video',
            codec_name: 'mjpeg',
            disposition: { attached_pic: 1 },
            avg_frame_rate: '0/0',
          },
        ],
      },
      'mp4',
    );
    expect(parsed.durationSeconds).toBe(4.5);
    expect(parsed.bitRate).toBe(128000);
    expect(parsed.streams[0]).toMatchObject({ type: 'video', fps: 29.97, rotation: 270 });
    expect(parsed.streams[1]).toEqual({
      type: 'audio',
      codec: 'aac',
      index: 1,
      sampleRate: 48000,
      channels: 2,
      bitRate: 96000,
    });
    expect(parsed.streams[2]).toMatchObject({ type: 'image', codec: 'mjpeg' });
    expect(parsed.streams[2]?.fps).toBeUndefined();
  });
});

describe('limits', () => {
  it('names the tier that lifts a duration limit', () => {
    const error = catchError(() => assertDurationWithinTier(info([aac], 121), 'free', 120));
    expect(error.code).toBe('media_too_long');
    expect(statusOf(error)).toBe(413);
    expect(error.message).toBe(
      'The source lasts 121 s, over the 120 s limit of the free tier. The pro tier accepts media up to 30 min.',
    );
    expect(catchError(() => assertDurationWithinTier(info([aac], 2000), 'pro', 1800)).message).toContain(
      'The enterprise tier accepts media up to 60 min.',
    );
    expect(
      catchError(() => assertDurationWithinTier(info([aac], 4000), 'enterprise', 3600)).message,
    ).toContain('No tier accepts media this long');
    expect(() => assertDurationWithinTier(info([aac], 120), 'free', 120)).not.toThrow();
  });

  it('refuses times at or past the end, and files without the needed stream', () => {
    expect(catchError(() => assertWithinDuration(info([h264], 10), 'start', 10)).code).toBe('invalid_range');
    expect(() => assertWithinDuration(info([h264], 10), 'start', 9.9)).not.toThrow();
    expect(catchError(() => requireStream(info([h264]), 'audio')).code).toBe('no_audio_stream');
    expect(catchError(() => requireStream(info([]), 'audio')).code).toBe('invalid_source_file');
  });

  it('formats durations as the tier table does', () => {
    expect(formatSeconds(120)).toBe('120 s');
    expect(formatSeconds(1800)).toBe('30 min');
    expect(formatSeconds(90)).toBe('90 s');
    expect(formatSeconds(121.04)).toBe('121 s');
  });
});

describe('request schemas', () => {
  const url = 'https://example.com/a.mp4';
  const issues = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
    result.error?.issues.map((issue) => issue.path.join('.')) ?? [];

  it('refuse a bitrate for lossless output and rates mp3 cannot hold', () => {
    expect(
      issues(audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'flac', bitrate: 128 })),
    ).toEqual(['bitrate']);
    expect(issues(extractAudioBody.safeParse({ sourceUrl: url, outputFormat: 'wav', bitrate: 128 }))).toEqual(
      ['bitrate'],
    );
    expect(
      issues(audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp3', sampleRate: 96000 })),
    ).toEqual(['sampleRate']);
    expect(
      audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'flac', sampleRate: 96000 }).success,
    ).toBe(true);
    expect(audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp3', channels: 3 }).success).toBe(
      false,
    );
    expect(
      audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp3', sampleRate: 44000 }).success,
    ).toBe(false);
  });

  it('apply the documented defaults, and leave quality unset unless asked', () => {
    expect(extractAudioBody.parse({ sourceUrl: url })).toEqual({ sourceUrl: url, outputFormat: 'mp3' });
    expect(videoConvertBody.parse({ sourceUrl: url, outputFormat: 'mp4' })).toEqual({
      sourceUrl: url,
      outputFormat: 'mp4',
      mute: false,
    });
    expect(thumbnailBody.parse({ sourceUrl: url, outputFormat: 'jpeg' }).outputFormat).toBe('jpeg');
    expect(thumbnailBody.parse({ sourceUrl: url }).outputFormat).toBe('jpg');
  });

  it('reject unknown fields and out-of-range values', () => {
    expect(issues(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp4', widht: 10 }))).toEqual([
      '',
    ]);
    expect(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp4', width: 8 }).success).toBe(false);
    expect(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'flv' }).success).toBe(false);
    expect(videoConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp4', duration: 0 }).success).toBe(
      false,
    );
    expect(thumbnailBody.safeParse({ sourceUrl: url, at: -1 }).success).toBe(false);
  });
});

describe('route rows', () => {
  it.each(mediaRoutes.map((route) => [route.path, route] as const))(
    '%s: its example is a valid body',
    (_path, route) => {
      expect(route.body?.safeParse(route.example).success).toBe(true);
      expect(route.kind === 'file' ? route.produces?.length : route.response).toBeTruthy();
    },
  );
});
