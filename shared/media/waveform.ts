import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import sharp from 'sharp';
import type { Rgba } from '#shared/image/colour.ts';
import { withRealDuration } from '#shared/media/duration.ts';
import { demuxerOf } from '#shared/media/formats.ts';
import {
  assertNoOverrun,
  inspectMedia,
  type MediaContext,
  type MediaFile,
  type MediaInput,
  NothingDecodedError,
  runMediaJob,
} from '#shared/media/job.ts';
import { assertDurationWithinTier, requireStream } from '#shared/media/limits.ts';
import { overrunSeconds } from '#shared/media/options.ts';
import { PeakCollector, WavSamples } from '#shared/media/peaks.ts';
import type { MediaInfo } from '#shared/media/probe.ts';
import type { FfmpegJob } from '#shared/media/run.ts';
import type { WaveformFormat, WaveformResult } from '#shared/media/tool-schemas.ts';

/**
 * /audio-waveform: the first audio stream decoded once to 16-bit PCM (WAV) on ffmpeg's stdout, its peaks
 * gathered as it streams (peaks.ts), so that memory stays the same for a minute or an hour. The
 * picture is drawn from the peaks as SVG (one bar a pixel column), and rasterised to PNG by sharp.
 */

export interface WaveformOptions {
  outputFormat: WaveformFormat;
  width: number;
  height: number;
  color: Rgba;
  background: Rgba;
  points?: number | undefined;
}

/** The decode job: PCM at the stream's own rate and channels, on stdout, cut a little past the tier's limit. */
export function planWaveform(input: MediaInput, info: MediaInfo, maxSeconds: number): FfmpegJob {
  const stream = requireStream(info, 'audio');
  return {
    input: input.path,
    demuxer: demuxerOf[input.format],
    output: 'pipe:1',
    outputOptions: [
      ...['-map', `0:${stream.index}`, '-vn', '-sn'],
      ...['-t', String(maxSeconds + overrunSeconds)],
      ...['-ac', String(stream.channels ?? 2)],
      ...(stream.sampleRate ? ['-ar', String(stream.sampleRate)] : []),
      // WAV on the pipe (its header is passed over, peaks.ts): the layer's muxers write no bare PCM.
      ...['-c:a', 'pcm_s16le', '-map_metadata', '-1', '-fflags', '+bitexact', '-f', 'wav'],
    ],
    expectedSeconds: info.durationSeconds,
  };
}

const css = ({ r, g, b }: Rgba) => `rgb(${r},${g},${b})`;
const opacity = ({ alpha }: Rgba) => Number(alpha.toFixed(3));
const coordinate = (value: number) => Number(value.toFixed(2));

/**
 * The waveform as SVG: per pixel column a bar from the lowest to the highest sample, at least one
 * pixel tall, around the middle line; the background a rectangle behind it unless transparent.
 */
export function waveformSvg(
  peaks: readonly (readonly [number, number])[],
  options: Pick<WaveformOptions, 'width' | 'height' | 'color' | 'background'>,
): string {
  const { width, height } = options;
  const middle = height / 2;
  const bars = peaks.map(([low, high], x) => {
    let top = middle - high * middle;
    let bottom = middle - low * middle;
    if (bottom - top < 1) {
      const centre = (top + bottom) / 2;
      top = centre - 0.5;
      bottom = centre + 0.5;
    }
    return `M${x} ${coordinate(top)}h1V${coordinate(bottom)}h-1z`;
  });
  const background =
    options.background.alpha > 0
      ? `<rect width="${width}" height="${height}" fill="${css(options.background)}" fill-opacity="${opacity(options.background)}"/>`
      : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `${background}<path fill="${css(options.color)}" fill-opacity="${opacity(options.color)}" d="${bars.join('')}"/></svg>\n`
  );
}

/** Decodes the audio once and returns its peaks, with what was read. */
export async function readPeaks(
  input: MediaInput,
  points: number,
  context: MediaContext,
): Promise<WaveformResult> {
  const header = await inspectMedia(input, context);
  requireStream(header, 'audio');
  const info = await withRealDuration(input, header, {
    stopAfterSeconds: context.maxMediaSeconds + overrunSeconds,
    signal: context.signal,
  });
  assertDurationWithinTier(info, context.tier, context.maxMediaSeconds);
  const stream = requireStream(info, 'audio');
  const collector = new PeakCollector(stream.channels ?? 2, points);
  const wav = new WavSamples((samples) => collector.add(samples));
  const sink = new Writable({
    emitClose: false,
    write(chunk: Buffer, _encoding, done) {
      try {
        wav.add(chunk);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  const run = await runMediaJob(
    planWaveform(input, info, context.maxMediaSeconds),
    context,
    'conversion',
    sink,
  );
  await finished(sink);
  if (collector.frames === 0) throw new NothingDecodedError();
  const sampleRate = stream.sampleRate ?? 48_000;
  const seconds = collector.frames / sampleRate;
  assertNoOverrun({ ...run, seconds }, info, undefined, context);
  return {
    durationSeconds: Number(seconds.toFixed(3)),
    sampleRate,
    channels: collector.channels,
    peaks: collector.peaks(points),
  };
}

const answers: Readonly<Record<WaveformFormat, { contentType: string; extension: string }>> = {
  png: { contentType: 'image/png', extension: 'png' },
  svg: { contentType: 'image/svg+xml', extension: 'svg' },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
};

/** The waveform of a source's first audio stream as png, svg or json peaks. */
export async function drawWaveform(
  input: MediaInput,
  options: WaveformOptions,
  context: MediaContext,
): Promise<MediaFile> {
  const points = options.outputFormat === 'json' ? (options.points ?? options.width) : options.width;
  const result = await readPeaks(input, points, context);
  const { contentType, extension } = answers[options.outputFormat];
  const path = await context.workspace.file(`waveform.${extension}`);
  if (options.outputFormat === 'json') {
    await writeFile(path, JSON.stringify(result));
  } else {
    const svg = waveformSvg(result.peaks, options);
    if (options.outputFormat === 'svg') await writeFile(path, svg);
    else await sharp(Buffer.from(svg)).png().toFile(path);
  }
  return { path, contentType, fileName: `${input.baseName}.${extension}` };
}
