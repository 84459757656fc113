import {
  animationFormats,
  audioOutputFormats,
  contentTypeOf,
  imageOutputFormats,
  mediaSourceFormats,
  videoOutputFormats,
} from '#shared/media/formats.ts';
import {
  audioConvertBody,
  extractAudioBody,
  mediaInfoBody,
  mediaInfoResult,
  thumbnailBody,
  videoConvertBody,
} from '#shared/media/schemas.ts';
import { bufferedSizing, streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { videoFormats } from '#shared/source/formats.ts';

export const sampleVideo = 'https://www.w3schools.com/html/mov_bbb.mp4';
export const sampleAudio = 'https://www.w3schools.com/html/horse.mp3';

export const sourceRules =
  'The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) ' +
  'and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio ' +
  'layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. ' +
  'Playlists and other text files are refused.';

export const tierLength =
  'A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 ' +
  '`media_too_long` before any work starts, its length read from the packets where the header only estimates ' +
  'or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on ' +
  'past it is refused the same way. So is a conversion that does not finish within 10 minutes, a ' +
  'processing limit that is the same on every tier (its message says so): convert a shorter part. A result ' +
  'whose stream does not decode to a frame is never sent (400 `invalid_source_file`).';

/** The bitrate actually used, on the audio routes' answers. */
const audioBitrateHeader = {
  'X-Audio-Bitrate': {
    description:
      'The audio bitrate the encoder was given, in kbit/s: the one asked (or the default), or the nearest one the encoder takes at the output’s channels and sample rate (Vorbis: e.g. 240 for mono at 44.1 kHz; Opus: 256 a channel; MP3: 160 at 16–24 kHz, 64 at 8–12 kHz; AAC: 6 bits a sample a channel). Absent when the stream is copied or written lossless.',
    type: 'integer',
  },
} as const;

const audioBitrates =
  'A bitrate the encoder cannot take at the output’s channels and sample rate is brought to the nearest one ' +
  'it takes, named by the `X-Audio-Bitrate` header (Vorbis at 88200 or 96000 Hz takes none: a bitrate there ' +
  'answers 400 `validation_failed`).';

export const typesOf = (formats: readonly (keyof typeof contentTypeOf)[]) =>
  formats.map((format) => contentTypeOf[format]);

export const audioConvertRoute = defineRoute({
  method: 'POST',
  path: '/audio-convert',
  function: 'audio-convert',
  kind: 'file',
  sizing: streamedSizing(3008, 900, 10),
  jobStore: 'run',
  formats: { categories: ['audio'], inputs: mediaSourceFormats, outputs: audioOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Convert audio, or the sound of a video, to another audio format',
  description:
    `${sourceRules} The first audio stream is written as mp3 (LAME, 192 kbit/s), wav (16-bit PCM), ogg (Opus, ` +
    '128 kbit/s; Vorbis when a sample rate Opus cannot hold is asked), aac (ADTS, 160 kbit/s), flac or m4a ' +
    '(AAC, 160 kbit/s). A stream that already fits the target and is not asked to change (bitrate, ' +
    'sampleRate, channels) is copied without re-encoding; start and duration cut it either way. ' +
    `${audioBitrates} ${tierLength} The file is named after the source: \`<name>.<outputFormat>\`.`,
  body: audioConvertBody,
  produces: typesOf(audioOutputFormats),
  fileHeaders: audioBitrateHeader,
  example: { sourceUrl: sampleAudio, outputFormat: 'ogg', bitrate: 96, channels: 1 },
  errors: [...sourceErrors, 'no_audio_stream', 'invalid_range', 'media_too_long', 'engine_unavailable'],
});

export const videoConvertRoute = defineRoute({
  method: 'POST',
  path: '/video-convert',
  function: 'video-convert',
  kind: 'file',
  sizing: streamedSizing(3008, 900, 10),
  jobStore: 'run',
  formats: {
    categories: ['video'],
    inputs: videoFormats,
    outputs: [...videoOutputFormats, ...animationFormats],
  },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Convert a video to another container or to an animated GIF or WebP, resize, re-time or cut it',
  description:
    `${sourceRules} Streams whose codec the target container holds are copied without re-encoding unless ` +
    'a change is asked: width/height (aspect kept; with both, the video fits inside that box; dimensions ' +
    'are rounded to even numbers), fps, start (an exact cut), or quality. Otherwise video is encoded as ' +
    'H.264 (mp4, mov, mkv), VP9 (webm) or MPEG-4 Part 2 (avi), audio as AAC, Opus or MP3 respectively. ' +
    'quality sets the level of a re-encode: low, medium (default) or high. mute drops the audio. Only the ' +
    'first video and audio streams are kept; subtitles are dropped. Every encoder reads frames up to 8192 × ' +
    '8192 pixels but writes less where it must, checked before any work (400 `validation_failed` naming ' +
    'width, height or outputFormat and the largest size that fits): VP9 (webm) up to 7680 × 4320 pixels a ' +
    'frame (33.2 megapixels, the most its encoder opens in the memory one conversion has), MPEG-4 Part 2 ' +
    '(avi) up to 8190 pixels on either side. A re-encode of a file whose length was read from its packets ' +
    '(one that states none) ends within a frame of 25 a second of where they end. ' +
    'gif and webp are animations: frames at `fps` (default 10) and `width` (default the source’s, at most 480), ' +
    'up to 3840 pixels on either side and 3000 frames (400 `validation_failed` naming the duration or fps that ' +
    'fits), without sound; loop (default true) plays them for ever or once. A GIF is made in two passes: a ' +
    '256-colour palette computed from the clip’s own frames, then the frames mapped onto it with error ' +
    'diffusion; an animated WebP is full-colour and lossy (quality low, medium, high: 50, 75, 90). ' +
    `${tierLength}`,
  body: videoConvertBody,
  produces: typesOf([...videoOutputFormats, ...animationFormats]),
  example: { sourceUrl: sampleVideo, outputFormat: 'webm', width: 320, quality: 'low' },
  moreExamples: {
    gif: {
      summary: 'An animated GIF of the first three seconds',
      body: { sourceUrl: sampleVideo, outputFormat: 'gif', duration: 3, fps: 10, width: 320 },
    },
  },
  errors: [...sourceErrors, 'no_video_stream', 'invalid_range', 'media_too_long', 'engine_unavailable'],
});

export const videoExtractAudioRoute = defineRoute({
  method: 'POST',
  path: '/video-extract-audio',
  function: 'video-extract-audio',
  kind: 'file',
  sizing: streamedSizing(3008, 900, 10),
  jobStore: 'run',
  formats: { categories: ['video'], inputs: videoFormats, outputs: audioOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Extract the sound track of a video as an audio file',
  description:
    `${sourceRules} The first audio stream is written as outputFormat (mp3 by default), copied without ` +
    're-encoding when it already fits and no bitrate is asked. Encoders and default bitrates as for ' +
    `/audio-convert. ${audioBitrates} ${tierLength}`,
  body: extractAudioBody,
  produces: typesOf(audioOutputFormats),
  fileHeaders: audioBitrateHeader,
  example: { sourceUrl: sampleVideo, outputFormat: 'mp3' },
  errors: [...sourceErrors, 'no_audio_stream', 'media_too_long', 'engine_unavailable'],
});

export const videoThumbnailRoute = defineRoute({
  method: 'POST',
  path: '/video-thumbnail',
  function: 'video-thumbnail',
  kind: 'file',
  sizing: streamedSizing(3008, 900, 10),
  jobStore: 'run',
  formats: { categories: ['video'], inputs: videoFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Media',
  summary: 'Capture one frame of a video as an image',
  description:
    `${sourceRules} The frame at \`at\` seconds (default 10 % of the duration, or the first decodable frame ` +
    'when no frame lies past that time) as jpg, png or webp, ' +
    'optionally scaled to `width` with the aspect ratio kept. A time at or past the end answers 400 ' +
    '`invalid_range`. Reading one frame costs the same for any length, so the tier’s duration limit does ' +
    'not apply here.',
  body: thumbnailBody,
  produces: typesOf(imageOutputFormats),
  example: { sourceUrl: sampleVideo, at: 2, outputFormat: 'jpg', width: 320 },
  errors: [...sourceErrors, 'no_video_stream', 'invalid_range', 'engine_unavailable'],
});

export const mediaInfoRoute = defineRoute({
  method: 'POST',
  path: '/media-info',
  function: 'media-info',
  kind: 'json',
  sizing: bufferedSizing(1024, true),
  formats: { categories: ['audio', 'video'], inputs: mediaSourceFormats, outputs: ['json'] },
  tag: 'Media',
  summary: 'Container, duration, bit rate and streams of an audio or video file',
  description:
    `${sourceRules} container is the format read from the bytes. durationSeconds is read from the packets ` +
    '(demuxed, not decoded) where the header only estimates it or lacks it (MP3, ADTS, WAV, FLAC, files ' +
    'without a duration), else from the header; it and bitRate are null when they cannot be read. Streams ' +
    'are listed in file order; a cover picture attached to an audio file has type `image`. Nothing is ' +
    'decoded, so the tier’s duration limit does not apply.',
  body: mediaInfoBody,
  response: mediaInfoResult,
  example: { sourceUrl: sampleVideo },
  errors: [...sourceErrors, 'engine_unavailable'],
});

export const mediaRoutes: RouteSpec[] = [
  audioConvertRoute,
  videoConvertRoute,
  videoExtractAudioRoute,
  videoThumbnailRoute,
  mediaInfoRoute,
];
