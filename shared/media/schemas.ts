import * as z from 'zod';
import { vorbisQualityOnlyRates } from '#shared/media/audio-limits.ts';
import {
  type AudioOutputFormat,
  animationFormats,
  audioOutputFormats,
  imageOutputFormats,
  videoOutputFormats,
  videoQualities,
} from '#shared/media/formats.ts';
import { allRules, type SchemaRule, when, without } from '#shared/schema-rules.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

const sourceUrl = httpUrlField().describe(
  'An absolute http(s) URL of the audio or video file; the format is read from its bytes.',
);

const seconds = (description: string) => z.number().min(0).max(86_400).describe(description);

const start = seconds('Start at this many seconds into the source (a cut that is exact to the frame).');
/** Times are passed to ffmpeg in milliseconds: a duration under one would round to none at all. */
const duration = z
  .number()
  .min(0.001)
  .max(86_400)
  .describe('Keep at most this many seconds (at least 0.001, the millisecond times are given in).');

const bitrate = z
  .number()
  .int()
  .min(32)
  .max(320)
  .describe(
    'Audio bitrate in kbit/s, for the lossy formats only: with wav or flac it answers 400 validation_failed. Where the encoder cannot take it at the output’s channels and sample rate, the nearest bitrate it takes is used; the X-Audio-Bitrate header of the answer names the one used. ogg at 88200 or 96000 Hz (Vorbis) takes no bitrate.',
  );

/** The sample rates every lossy encoder in use can write (mp3 stops at 48000). */
export const sampleRates = [
  8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000,
] as const;
const mp3SampleRates: ReadonlySet<number> = new Set(sampleRates.filter((rate) => rate <= 48_000));

const losslessAudio: ReadonlySet<AudioOutputFormat> = new Set(['wav', 'flac']);

/** Cross-field rules: a bitrate means nothing to lossless formats, and mp3 cannot hold every rate. */
function checkAudioTarget(
  body: { outputFormat: AudioOutputFormat; bitrate?: number | undefined; sampleRate?: number | undefined },
  context: z.core.$RefinementCtx,
): void {
  if (body.bitrate !== undefined && losslessAudio.has(body.outputFormat)) {
    context.addIssue({
      code: 'custom',
      path: ['bitrate'],
      message: `${body.outputFormat} is lossless; leave bitrate out or choose mp3, ogg, aac or m4a`,
    });
  }
  if (
    body.bitrate !== undefined &&
    body.outputFormat === 'ogg' &&
    body.sampleRate !== undefined &&
    vorbisQualityOnlyRates.has(body.sampleRate)
  ) {
    context.addIssue({
      code: 'custom',
      path: ['bitrate'],
      message: `ogg at ${body.sampleRate} Hz is written with Vorbis, which takes a quality but no bitrate there; leave bitrate out, or choose a sampleRate up to 48000`,
    });
  }
  if (body.sampleRate !== undefined && body.outputFormat === 'mp3' && !mp3SampleRates.has(body.sampleRate)) {
    context.addIssue({ code: 'custom', path: ['sampleRate'], message: 'mp3 holds sample rates up to 48000' });
  }
}

/** The same rules, as the document states them. */
const noBitrateWhenLossless: SchemaRule = when({ outputFormat: [...losslessAudio] }, without('bitrate'));
const noBitrateWhenVorbisQualityOnly: SchemaRule = when(
  { outputFormat: 'ogg', sampleRate: [...vorbisQualityOnlyRates] },
  without('bitrate'),
);
const mp3Rates: SchemaRule = when(
  { outputFormat: 'mp3' },
  { properties: { sampleRate: { enum: [...mp3SampleRates] } } },
);

export const audioConvertBody = z
  .strictObject({
    sourceUrl,
    outputFormat: z.enum(audioOutputFormats).describe('The audio format to write.'),
    bitrate: bitrate.optional(),
    sampleRate: z
      .literal(sampleRates)
      .optional()
      .describe('Output sample rate in Hz; default the source’s. mp3 holds rates up to 48000.'),
    channels: z.literal([1, 2]).optional().describe('1 (mono) or 2 (stereo); default the source’s.'),
    start: start.optional(),
    duration: duration.optional(),
  })
  .superRefine(checkAudioTarget)
  .meta(allRules(noBitrateWhenLossless, noBitrateWhenVorbisQualityOnly, mp3Rates));
export type AudioConvertBody = z.infer<typeof audioConvertBody>;

const dimension = (axis: string) =>
  z
    .number()
    .int()
    .min(16)
    .max(7680)
    .describe(
      `Output ${axis} in pixels; the aspect ratio is kept and dimensions are rounded to even numbers. Neither side of the output may pass 8192 pixels: a value that makes the other side larger answers 400 validation_failed naming the largest value that fits. gif and webp: default the source's width, at most 480; up to 3840 on either side.`,
    );

/** A loop flag means nothing to a video container. */
function checkLoop(
  body: { outputFormat: string; loop?: boolean | undefined },
  context: z.core.$RefinementCtx,
): void {
  if (body.loop !== undefined && !(animationFormats as readonly string[]).includes(body.outputFormat)) {
    context.addIssue({
      code: 'custom',
      path: ['loop'],
      message: `${body.outputFormat} is a video, which players loop or not; loop is for gif and webp`,
    });
  }
}

export const videoConvertBody = z
  .strictObject({
    sourceUrl,
    outputFormat: z
      .enum([...videoOutputFormats, ...animationFormats])
      .describe(
        'The container to write, or an animation: gif (a palette computed from the clip) or webp (animated).',
      ),
    width: dimension('width').optional(),
    height: dimension('height').optional(),
    quality: z
      .enum(videoQualities)
      .optional()
      .describe(
        'Encoding quality: low, medium (the default when re-encoding) or high. Giving it asks for a re-encode even where the stream could be copied.',
      ),
    fps: z
      .number()
      .min(0.01)
      .max(120)
      .optional()
      .describe(
        'Output frame rate, 0.01–120 (gif and webp: default 10). A rate at which the part converted would hold no frame (under one frame in its length) answers 400 validation_failed naming the lowest rate that fits.',
      ),
    start: start.optional(),
    duration: duration.optional(),
    mute: z.boolean().default(false).describe('Drop the audio (gif and webp have none).'),
    loop: z
      .boolean()
      .optional()
      .describe('gif and webp only: play the animation for ever (true, the default) or once.'),
  })
  .superRefine(checkLoop)
  .meta(when({ outputFormat: [...videoOutputFormats] }, without('loop')));
export type VideoConvertBody = z.infer<typeof videoConvertBody>;

export const extractAudioBody = z
  .strictObject({
    sourceUrl,
    outputFormat: z.enum(audioOutputFormats).default('mp3').describe('The audio format to write.'),
    bitrate: bitrate.optional(),
  })
  .superRefine(checkAudioTarget)
  .meta(noBitrateWhenLossless);
export type ExtractAudioBody = z.infer<typeof extractAudioBody>;

export const thumbnailBody = z.strictObject({
  sourceUrl,
  at: seconds('The moment to capture, in seconds; default 10 % of the duration.').optional(),
  outputFormat: z
    .enum([...imageOutputFormats, 'jpeg'])
    .default('jpg')
    .describe('The image format; jpeg is an alias of jpg.'),
  width: z
    .number()
    .int()
    .min(16)
    .max(3840)
    .optional()
    .describe(
      'Image width in pixels; the aspect ratio is kept, and the height it makes may not pass 8192 pixels (400 validation_failed). Default the video’s own.',
    ),
});
export type ThumbnailBody = z.infer<typeof thumbnailBody>;

export const mediaInfoBody = z.strictObject({ sourceUrl });
export type MediaInfoBody = z.infer<typeof mediaInfoBody>;

export const mediaInfoResult = z.object({
  container: z.string().describe('The container format read from the bytes, e.g. mp4, webm, mp3.'),
  durationSeconds: z.number().nullable().describe('null when the file does not state it.'),
  sizeBytes: z.number().int(),
  bitRate: z.number().int().nullable().describe('Overall bits per second; null when unknown.'),
  streams: z.array(
    z.object({
      type: z
        .enum(['video', 'audio', 'subtitle', 'data', 'attachment', 'image'])
        .describe('image: a still picture attached to the file (cover art).'),
      codec: z.string(),
      width: z.number().int().optional(),
      height: z.number().int().optional(),
      fps: z.number().optional(),
      sampleRate: z.number().int().optional(),
      channels: z.number().int().optional(),
      bitRate: z.number().int().optional(),
    }),
  ),
});
export type MediaInfoResult = z.infer<typeof mediaInfoResult>;
