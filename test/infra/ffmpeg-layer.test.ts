import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planAudio } from '#shared/media/convert-audio.ts';
import { planVideo } from '#shared/media/convert-video.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { type MediaInfo, probeMedia } from '#shared/media/probe.ts';
import { type FfmpegJob, ffmpegArguments } from '#shared/media/run.ts';
import { planThumbnail } from '#shared/media/thumbnail.ts';
import { buildFfmpegLayer } from '../../layers/ffmpeg/build.ts';
import type { BuiltLayer } from '../../layers/layer.ts';
import { MediaFixtures, probe } from '../unit/media/fixtures.ts';

/**
 * The ffmpeg layer's own binaries (compiled statically from Debian's source package) run the
 * command lines the routes build, on real files, with no library of this machine: what Lambda runs.
 */
const run = promisify(execFile);
const fixtures = new MediaFixtures();
let layer: BuiltLayer;
let out: string;

const tool = (name: 'ffmpeg' | 'ffprobe') => join(layer.dir, 'bin', name);

/** The layer's ffprobe on a result, confined as the service reads files. */
async function probeWithLayer(path: string, demuxer: string) {
  const { stdout } = await run(tool('ffprobe'), [
    ...['-v', 'error', '-protocol_whitelist', 'file', '-f', demuxer],
    ...['-print_format', 'json', '-show_streams', `file:${path}`],
  ]);
  return (
    JSON.parse(stdout) as { streams: Array<{ codec_type: string; codec_name: string; width?: number }> }
  ).streams;
}

async function source(recipe: 'mp4' | 'wav' | 'mkv' | 'avi') {
  const path = await fixtures.path(recipe);
  const format: MediaSourceFormat = recipe;
  const info: MediaInfo = await probeMedia(path, format, { timeoutMs: 30_000 });
  return { input: { path, format, baseName: recipe }, info };
}

/** Runs a job the way run.ts does (same arguments), with the layer's binary and an empty environment. */
const runWithLayer = (job: FfmpegJob) => run(tool('ffmpeg'), ffmpegArguments(job), { env: {}, cwd: out });

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'ffmpeg-layer-'));
  layer = buildFfmpegLayer(join(out, 'layers'));
  await fixtures.open();
});

afterAll(async () => {
  await fixtures.close();
  rmSync(out, { recursive: true, force: true });
});

describe('the ffmpeg layer', () => {
  it('is the release of Debian’s ffmpeg package that the tests run, statically linked', async () => {
    const { stdout } = await run(tool('ffmpeg'), ['-version'], { env: {} });
    const release = /^ffmpeg version (\d+\.\d+\.\d+)-static/.exec(stdout)?.[1];
    expect(release).toMatch(/^5\.1\.\d+$/);
    expect(layer.inputs.debianSource).toContain(`ffmpeg 7:${release}-`);
    const system = await run('/usr/bin/ffmpeg', ['-version']).then(
      ({ stdout: text }) => text,
      () => '',
    );
    if (system !== '') expect(system).toContain(`ffmpeg version ${release}-`);
    const { stdout: linked } = await run('file', [tool('ffmpeg'), tool('ffprobe')]);
    expect(linked.match(/statically linked/g)).toHaveLength(2);
  });

  it('converts video as the routes ask: mp4 → webm (VP9, Opus), mkv → avi (MPEG-4, MP3)', async () => {
    const mp4 = await source('mp4');
    const webm = planVideo(mp4.input, mp4.info, { outputFormat: 'webm', width: 96 }, join(out, 'a.webm'));
    await runWithLayer(webm.job);
    const webmStreams = await probeWithLayer(webm.job.output, 'matroska');
    expect(webmStreams.map((stream) => stream.codec_name).sort()).toEqual(['opus', 'vp9']);
    expect(webmStreams.find((stream) => stream.codec_type === 'video')?.width).toBe(96);

    const mkv = await source('mkv');
    const avi = planVideo(mkv.input, mkv.info, { outputFormat: 'avi', quality: 'low' }, join(out, 'b.avi'));
    await runWithLayer(avi.job);
    expect((await probeWithLayer(avi.job.output, 'avi')).map((stream) => stream.codec_name).sort()).toEqual([
      'mp3',
      'mpeg4',
    ]);
  });

  it('converts audio (wav → mp3, ogg) and captures frames (mp4 → jpg, png, webp)', async () => {
    const wav = await source('wav');
    for (const [format, codec] of [
      ['mp3', 'mp3'],
      ['ogg', 'opus'],
    ] as const) {
      const job = planAudio(wav.input, wav.info, { outputFormat: format }, join(out, `c.${format}`));
      await runWithLayer(job);
      expect((await probeWithLayer(job.output, format))[0]?.codec_name).toBe(codec);
    }
    const mp4 = await source('mp4');
    for (const [format, codec] of [
      ['jpg', 'mjpeg'],
      ['png', 'png'],
      ['webp', 'webp'],
    ] as const) {
      const job = planThumbnail(mp4.input, mp4.info, { outputFormat: format }, join(out, `d.${format}`));
      await runWithLayer(job);
      // The layer reads no images (no route needs it), so Debian's ffprobe reads them back.
      expect((await probe(job.output)).video?.codec_name).toBe(codec);
    }
  });

  it('has no network protocols and no playlist demuxers', async () => {
    const { stdout: protocols } = await run(tool('ffmpeg'), ['-hide_banner', '-protocols'], { env: {} });
    expect(protocols).toMatch(/\bfile\b/);
    expect(protocols).not.toMatch(/\b(http|https|tcp|udp|rtmp)\b/);
    const { stdout: formats } = await run(tool('ffmpeg'), ['-hide_banner', '-demuxers'], { env: {} });
    expect(formats).not.toMatch(/\b(hls|concat|sdp|rtsp)\b/);
  });
});
