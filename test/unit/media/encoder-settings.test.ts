import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { encoderBitrate } from '#shared/media/audio-bitrate.ts';
import { appliedBitrate, planAudio } from '#shared/media/convert-audio.ts';
import { assertFramesAtRate, planVideo } from '#shared/media/convert-video.ts';
import type { MediaInput } from '#shared/media/job.ts';
import type { MediaInfo, StreamInfo } from '#shared/media/probe.ts';
import { audioConvertBody, extractAudioBody, videoConvertBody } from '#shared/media/schemas.ts';

const input: MediaInput = { path: '/srv/job/source', format: 'avi', baseName: 'clip' };
const info = (streams: StreamInfo[], durationSeconds = 10): MediaInfo => ({
  container: 'avi',
  durationSeconds,
  sizeBytes: 1000,
  bitRate: 8000,
  streams,
});
const mono44: StreamInfo = { type: 'audio', codec: 'vorbis', sampleRate: 44100, channels: 1, index: 0 };
const optionAfter = (options: readonly string[], flag: string) => {
  const at = options.indexOf(flag);
  return at < 0 ? undefined : options[at + 1];
};

/** The ApiError a call throws, or undefined. */
function errorOf(call: () => unknown): ApiError | undefined {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  return undefined;
}

describe('audio bitrates the encoders take', () => {
  it.each([
    // Measured on the layer's ffmpeg: libvorbis refuses outside these, libopus over 256 a channel.
    ['libvorbis', 96, 1, 22050, 90],
    ['libvorbis', 320, 1, 44100, 240],
    ['libvorbis', 32, 2, 44100, 45],
    ['libvorbis', 128, 2, 44100, 128],
    ['libvorbis', 64, 6, 44100, 84],
    ['libopus', 320, 1, 48000, 256],
    ['libopus', 320, 2, 48000, 320],
    // LAME and the AAC encoder write less than asked without a word: the figure they write.
    ['libmp3lame', 320, 2, 22050, 160],
    ['libmp3lame', 320, 1, 8000, 64],
    ['aac', 320, 1, 8000, 48],
    ['aac', 320, 2, 44100, 320],
  ] as const)('%s at %i kbit/s, %i channel(s), %i Hz → %i', (encoder, kbps, channels, sampleRate, used) => {
    expect(encoderBitrate(encoder, kbps, { channels, sampleRate })).toBe(used);
  });

  it('takes no bitrate for lossless encoders, nor for Vorbis at 88.2 and 96 kHz', () => {
    expect(encoderBitrate('flac', 128, { channels: 2, sampleRate: 44100 })).toBeUndefined();
    expect(encoderBitrate('libvorbis', 128, { channels: 2, sampleRate: 96000 })).toBeUndefined();
  });

  it('gives the encoder the figure it takes, and Vorbis a quality where it takes no bitrate', () => {
    const ogg = planAudio(input, info([mono44]), { outputFormat: 'ogg', bitrate: 320 }, '/o');
    expect(optionAfter(ogg.outputOptions, '-c:a')).toBe('libopus');
    expect(optionAfter(ogg.outputOptions, '-b:a')).toBe('256k');
    expect(appliedBitrate(mono44, { outputFormat: 'ogg', bitrate: 320 })).toBe(256);
    const vorbis = planAudio(input, info([mono44]), { outputFormat: 'ogg', sampleRate: 96000 }, '/o');
    expect(optionAfter(vorbis.outputOptions, '-c:a')).toBe('libvorbis');
    expect(vorbis.outputOptions).not.toContain('-b:a');
    expect(optionAfter(vorbis.outputOptions, '-q:a')).toBe('4');
    expect(appliedBitrate(mono44, { outputFormat: 'ogg', sampleRate: 96000 })).toBeUndefined();
    expect(appliedBitrate(mono44, { outputFormat: 'ogg' })).toBeUndefined();
  });

  it('refuses a bitrate for Vorbis at 88.2 and 96 kHz before any work, naming bitrate', () => {
    const body = { sourceUrl: 'https://example.com/a.mp3', outputFormat: 'ogg', sampleRate: 96000 };
    expect(audioConvertBody.safeParse(body).success).toBe(true);
    const refused = audioConvertBody.safeParse({ ...body, bitrate: 32 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['bitrate']);
  });
});

describe('option bounds', () => {
  const url = 'https://example.com/a.mp4';

  it('refuses a duration under a millisecond and an fps under 0.01, naming the field', () => {
    for (const [schema, body] of [
      [audioConvertBody, { sourceUrl: url, outputFormat: 'mp3', duration: 5e-324 }],
      [videoConvertBody, { sourceUrl: url, outputFormat: 'mp4', duration: 0.0004 }],
      [videoConvertBody, { sourceUrl: url, outputFormat: 'mp4', fps: 5e-324 }],
    ] as const) {
      const result = schema.safeParse(body);
      expect(result.success).toBe(false);
      expect(Object.keys(body)).toContain(result.error?.issues[0]?.path[0]);
    }
    expect(audioConvertBody.safeParse({ sourceUrl: url, outputFormat: 'mp3', duration: 0.001 }).success).toBe(
      true,
    );
    expect(extractAudioBody.safeParse({ sourceUrl: url, bitrate: 320 }).success).toBe(true);
  });

  it('refuses a frame rate that leaves the part converted without a frame, naming the lowest that fits', () => {
    expect(errorOf(() => assertFramesAtRate(0.1, 3))?.message).toBe(
      'fps: at 0.1 frames per second the 3 s converted would hold no frame; ask for at least 0.334.',
    );
    expect(errorOf(() => assertFramesAtRate(0.5, 3))).toBeUndefined();
    expect(errorOf(() => assertFramesAtRate(0.01, undefined))).toBeUndefined();
  });
});

describe('frames each video encoder writes', () => {
  const square = (side: number): StreamInfo => ({
    type: 'video',
    codec: 'h264',
    width: side,
    height: side,
    fps: 25,
    index: 0,
  });
  const plan = (side: number, options: Parameters<typeof planVideo>[2]) =>
    errorOf(() => planVideo(input, info([square(side)], 1), options, '/o'));

  it('refuses VP9 over 7680 × 4320 pixels a frame, naming outputFormat and a width that fits', () => {
    const error = plan(8000, { outputFormat: 'webm' });
    expect(error?.code).toBe('validation_failed');
    expect(error?.message).toMatch(
      /^outputFormat: the source's frames are 8000 × 8000 \(64,000,000 pixels\)/,
    );
    expect(error?.message).toContain('VP9 (webm) is written up to 33,177,600 pixels a frame (7680 × 4320)');
    expect(error?.message).toContain('a width of at most 5760');
    // 5760 × 5760 is 7680 × 4320's 33 177 600 pixels; 5762 × 5762 is more.
    expect(plan(8000, { outputFormat: 'webm', width: 5760 })).toBeUndefined();
    expect(plan(8000, { outputFormat: 'webm', width: 5762 })?.message).toMatch(
      /^width: .* Ask for a width of at most 5760\.$/,
    );
    expect(plan(8000, { outputFormat: 'mp4' })).toBeUndefined();
  });

  it('refuses MPEG-4 Part 2 over 8190 pixels on either side; copies are not encoded', () => {
    expect(plan(8192, { outputFormat: 'avi' })?.message).toMatch(
      /^outputFormat: .* MPEG-4 Part 2 \(avi\) is written up to 8190 pixels on either side/,
    );
    expect(plan(8000, { outputFormat: 'avi' })).toBeUndefined();
    // H.264 fits mkv as it is: copied, so no encoder's bound applies.
    expect(plan(8192, { outputFormat: 'mkv' })).toBeUndefined();
  });
});

describe('a re-encode ends where the packets end', () => {
  const vp8: StreamInfo = { type: 'video', codec: 'vp8', width: 64, height: 48, fps: 2, index: 0 };
  const recorder = (fromPackets: boolean): MediaInfo => ({
    ...info([vp8], 4.24),
    container: 'webm',
    durationFromPackets: fromPackets,
  });
  const filterOf = (options: readonly string[]) => optionAfter(options, '-vf');

  it('puts frames on a grid of at least 25 a second, cut half a grid frame past the end', () => {
    const { job } = planVideo(input, recorder(true), { outputFormat: 'mp4', duration: 121 }, '/o');
    expect(filterOf(job.outputOptions)).toBe('fps=25');
    expect(optionAfter(job.outputOptions, '-t')).toBe('4.26');
  });

  it('keeps an asked duration shorter than the source, and a header it need not doubt as it is', () => {
    const cut = planVideo(input, recorder(true), { outputFormat: 'mp4', duration: 2 }, '/o').job;
    expect(optionAfter(cut.outputOptions, '-t')).toBe('2');
    const header = planVideo(input, recorder(false), { outputFormat: 'mp4', duration: 121 }, '/o').job;
    expect(filterOf(header.outputOptions)).toBeUndefined();
    expect(optionAfter(header.outputOptions, '-t')).toBe('121');
  });
});
