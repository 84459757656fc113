import * as z from 'zod';
import { cssColourPattern, parseCssColour } from '#shared/image/colour.ts';
import { audioOutputFormats, videoOutputFormats } from '#shared/media/formats.ts';
import { whenOrDefault, without } from '#shared/schema-rules.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';
import { tiers } from '#shared/tiers.ts';

/** Request and answer schemas of /media-concat, /audio-normalize and /audio-waveform. */

const url = httpUrlField();
const sourceUrl = url.describe(
  'An absolute http(s) URL of the audio or video file; the format is read from its bytes.',
);

export const mediaConcatBody = z.strictObject({
  sources: z
    .array(url)
    .min(2)
    .max(tiers.enterprise.maxBatchFiles)
    .describe(
      `URLs of the audio or video files, in the order they play: at least 2, at most the tier's batch size (free ${tiers.free.maxBatchFiles}, pro ${tiers.pro.maxBatchFiles}, enterprise ${tiers.enterprise.maxBatchFiles}).`,
    ),
  outputFormat: z
    .enum([...videoOutputFormats, ...audioOutputFormats])
    .describe(
      'The format to write: a video container (every source needs a video stream) or an audio format.',
    ),
});
export type MediaConcatBody = z.infer<typeof mediaConcatBody>;

export const audioNormalizeBody = z.strictObject({
  sourceUrl,
  outputFormat: z
    .enum(audioOutputFormats)
    .optional()
    .describe(
      'The audio format to write; default the source’s where it is one of these (m4a for mp4 and mov, ogg for webm, mp3 for mkv and avi).',
    ),
  targetLufs: z
    .number()
    .min(-70)
    .max(-5)
    .default(-16)
    .describe(
      'The integrated loudness to reach, in LUFS (EBU R128): −70 to −5, default −16 (speech, podcasts).',
    ),
  truePeak: z
    .number()
    .min(-9)
    .max(0)
    .default(-1.5)
    .describe('The highest true peak allowed, in dBTP: −9 to 0, default −1.5.'),
});
export type AudioNormalizeBody = z.infer<typeof audioNormalizeBody>;

const colour = (fallback: string, what: string) =>
  z
    .string()
    .max(100)
    .default(fallback)
    .meta({ pattern: cssColourPattern })
    .describe(`${what}: a CSS colour (e.g. "#1e88e5", "rgb(0 0 0 / 50%)", "navy"); default ${fallback}.`)
    .transform((text, context) => {
      const parsed = parseCssColour(text);
      if (parsed) return parsed;
      context.addIssue({
        code: 'custom',
        message: 'not a CSS colour (e.g. "#ffffff", "rgb(0 0 0 / 50%)", "navy")',
      });
      return z.NEVER;
    });

export const waveformFormats = ['png', 'svg', 'json'] as const;
export type WaveformFormat = (typeof waveformFormats)[number];

export const maxWaveformPoints = 20_000;

export const audioWaveformBody = z
  .strictObject({
    sourceUrl,
    outputFormat: z.enum(waveformFormats).default('png').describe('png (default), svg, or json peaks.'),
    width: z.number().int().min(100).max(4000).default(1000).describe('Image width in pixels, 100–4000.'),
    height: z.number().int().min(20).max(1000).default(200).describe('Image height in pixels, 20–1000.'),
    color: colour('#1e88e5', 'The colour of the waveform'),
    background: colour('transparent', 'The colour behind it'),
    points: z
      .number()
      .int()
      .min(1)
      .max(maxWaveformPoints)
      .optional()
      .describe(`json only: how many [min, max] pairs, 1–${maxWaveformPoints}; default the width.`),
  })
  .superRefine((body, context) => {
    if (body.points !== undefined && body.outputFormat !== 'json') {
      context.addIssue({
        code: 'custom',
        path: ['points'],
        message: `points is for json; a ${body.outputFormat} has one column of the waveform a pixel of its width`,
      });
    }
  })
  .meta(whenOrDefault('outputFormat', ['png', 'svg'], without('points')));
export type AudioWaveformBody = z.infer<typeof audioWaveformBody>;

export const waveformResult = z.object({
  durationSeconds: z.number().describe('Seconds of audio read (samples decoded over the sample rate).'),
  sampleRate: z.number().int(),
  channels: z.number().int(),
  peaks: z
    .array(z.tuple([z.number(), z.number()]))
    .describe('Per equal slice of the audio, in order: the lowest and highest sample of any channel, −1…1.'),
});
export type WaveformResult = z.infer<typeof waveformResult>;
