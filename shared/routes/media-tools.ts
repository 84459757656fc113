import { audioOutputFormats, mediaSourceFormats, videoOutputFormats } from '#shared/media/formats.ts';
import {
  audioNormalizeBody,
  audioWaveformBody,
  mediaConcatBody,
  waveformResult,
} from '#shared/media/tool-schemas.ts';
import { sampleAudio, sampleVideo, sourceRules, tierLength, typesOf } from '#shared/routes/media.ts';
import { streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';

/** The media tools: joining, loudness, waveforms (API.md, "More audio and video"). */

export const mediaConcatRoute = defineRoute({
  method: 'POST',
  path: '/media-concat',
  function: 'media-concat',
  kind: 'file',
  sizing: streamedSizing(3008, 900, 10),
  jobStore: 'run',
  formats: {
    categories: ['audio', 'video'],
    inputs: mediaSourceFormats,
    outputs: [...videoOutputFormats, ...audioOutputFormats],
  },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Join audio or video files into one, in order',
  description:
    `${sourceRules} Sources are downloaded four at a time; an error names the source by its place ` +
    '(`sources.2: …`). More sources than the tier’s batch size (free 5, pro 50, enterprise 200) answer 400 ' +
    '`validation_failed`; together they may not exceed the tier’s size limit (413 `source_too_large`) nor its ' +
    'duration limit (413 `media_too_long`). A video outputFormat needs a video stream in every source ' +
    '(400 `no_video_stream`); an audio one keeps the sound only. Sources whose streams are encoded alike ' +
    '(codec and its settings, frame size, frame rate, sample rate, channels) and that the target holds as they ' +
    'are, are joined without re-encoding. Otherwise every source is brought to the first one’s: frame size ' +
    '(scaled to fit, centred on black), frame rate, sample rate and channels, and encoded as /video-convert ' +
    'or /audio-convert would (medium quality); a source without sound gets silence when another has sound. ' +
    `${tierLength} The file is named after the first source.`,
  body: mediaConcatBody,
  produces: typesOf([...videoOutputFormats, ...audioOutputFormats]),
  example: { sources: [sampleVideo, sampleVideo], outputFormat: 'mp4' },
  errors: [
    ...sourceErrors,
    'validation_failed',
    'no_video_stream',
    'no_audio_stream',
    'media_too_long',
    'engine_unavailable',
  ],
});

export const audioNormalizeRoute = defineRoute({
  method: 'POST',
  path: '/audio-normalize',
  function: 'audio-normalize',
  kind: 'file',
  sizing: streamedSizing(2048, 900, 10),
  jobStore: 'run',
  formats: { categories: ['audio'], inputs: mediaSourceFormats, outputs: audioOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Make a recording as loud as a target (EBU R128 loudness normalisation)',
  description:
    `${sourceRules} The first audio stream is measured (integrated loudness, true peak, loudness range; ` +
    'EBU R128 / ITU-R BS.1770) in a first pass, then brought to `targetLufs` in a second by one gain over ' +
    'the whole file (ffmpeg’s loudnorm, linear mode), so the dynamics stay as they were; where that gain ' +
    'would push the true peak past `truePeak`, loudnorm compresses the peaks instead. The result keeps the ' +
    'source’s sample rate (Opus: 48 kHz; MP3: at most 48 kHz) and channels, encoded as /audio-convert ' +
    'does. The headers X-Input-Loudness and X-Output-Loudness state the integrated loudness measured before ' +
    'and after, in LUFS; a silent source (below −70 LUFS, under the standard’s gate) is written without a ' +
    `gain and both say \`-inf\`. ${tierLength}`,
  body: audioNormalizeBody,
  produces: typesOf(audioOutputFormats),
  fileHeaders: {
    'X-Input-Loudness': {
      description: 'Integrated loudness of the source in LUFS (e.g. -27.31), or -inf for silence.',
      type: 'string',
    },
    'X-Output-Loudness': {
      description: 'Integrated loudness of the result in LUFS, as the correcting pass measured it.',
      type: 'string',
    },
    'X-Audio-Bitrate': {
      description: 'The audio bitrate the encoder was given, in kbit/s; absent for wav and flac.',
      type: 'integer',
    },
  },
  example: { sourceUrl: sampleAudio, targetLufs: -16 },
  errors: [...sourceErrors, 'no_audio_stream', 'media_too_long', 'engine_unavailable'],
});

export const audioWaveformRoute = defineRoute({
  method: 'POST',
  path: '/audio-waveform',
  function: 'audio-waveform',
  kind: 'file',
  sizing: streamedSizing(2048, 900, 10),
  jobStore: 'run',
  formats: { categories: ['audio'], inputs: mediaSourceFormats, outputs: ['png', 'svg', 'json'] },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Draw the waveform of a recording, or list its peaks',
  description:
    `${sourceRules} The first audio stream is decoded once, as it streams (memory does not grow with its ` +
    'length), and cut into equal slices, one per pixel column (png, svg) or per point (json, default the ' +
    'width). Each slice is drawn as a bar from its lowest to its highest sample, of any channel, around the ' +
    'middle line, in `color` on `background`. json answers `{durationSeconds, sampleRate, channels, ' +
    'peaks: [[min, max], …]}` with samples in −1…1. ' +
    `${tierLength}`,
  body: audioWaveformBody,
  response: waveformResult,
  produces: ['image/png', 'image/svg+xml', 'application/json'],
  example: { sourceUrl: sampleAudio, outputFormat: 'png', width: 800, height: 120, color: '#1e88e5' },
  errors: [...sourceErrors, 'no_audio_stream', 'media_too_long', 'engine_unavailable'],
});

export const mediaToolRoutes: RouteSpec[] = [mediaConcatRoute, audioNormalizeRoute, audioWaveformRoute];
