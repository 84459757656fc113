import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatList, planCopy, planReencode } from '#shared/media/concat.ts';
import { planAnimation } from '#shared/media/convert-animation.ts';
import { planAudio } from '#shared/media/convert-audio.ts';
import { planVideo } from '#shared/media/convert-video.ts';
import type { MediaSourceFormat } from '#shared/media/formats.ts';
import { loudnessReport, planCorrect, planMeasure } from '#shared/media/normalize.ts';
import { type MediaInfo, probeMedia } from '#shared/media/probe.ts';
import { type FfmpegJob, ffmpegArguments } from '#shared/media/run.ts';
import { planThumbnail } from '#shared/media/thumbnail.ts';
import { planWaveform } from '#shared/media/waveform.ts';
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
      // The layer reads no images but the GIF palette it writes itself, so Debian's ffprobe reads them back.
      expect((await probe(job.output)).video?.codec_name).toBe(codec);
    }
  });

  it('makes animations as /video-convert asks: a GIF on the clip’s palette (two passes), an animated WebP', async () => {
    const mp4 = await source('mp4');
    const [palette, gif] = planAnimation(
      mp4.input,
      mp4.info,
      { outputFormat: 'gif', fps: 5 },
      join(out, 'e.gif'),
      join(out, 'e.png'),
    );
    for (const job of [palette!, gif!]) await runWithLayer(job);
    const { stdout: frames } = await run('identify', ['-format', '%W×%H\n', join(out, 'e.gif')]);
    expect(frames.trim().split('\n')).toEqual(Array(5).fill('160×120'));
    const [webp] = planAnimation(
      mp4.input,
      mp4.info,
      { outputFormat: 'webp', fps: 5, loop: false },
      join(out, 'f.webp'),
      '',
    );
    await runWithLayer(webp!);
    const { stdout: info } = await run('webpmux', ['-info', join(out, 'f.webp')]);
    expect(info).toMatch(/Number of frames: 5/);
    expect(info).toMatch(/Loop Count\s*:\s*1/);
  });

  it('measures and corrects loudness (loudnorm, two passes) and streams PCM for waveforms', async () => {
    const wav = await source('wav');
    const options = { targetLufs: -20, truePeak: -1.5 };
    const measuring = planMeasure(wav.input, wav.info, options, 120);
    const { stderr } = await runWithLayer(measuring);
    const measured = loudnessReport(stderr);
    expect(Number(measured?.input_i)).toBeLessThan(-5);
    const { job } = planCorrect(
      wav.input,
      wav.info,
      { ...options, outputFormat: 'flac' },
      measured!,
      join(out, 'g.flac'),
      120,
    );
    const corrected = loudnessReport((await runWithLayer(job)).stderr);
    expect(Math.abs(Number(corrected?.output_i) + 20)).toBeLessThanOrEqual(1);
    expect((await probe(job.output)).audio?.codec_name).toBe('flac');

    const pcm = planWaveform(wav.input, wav.info, 120);
    const { stdout } = await run(tool('ffmpeg'), ffmpegArguments(pcm), {
      env: {},
      cwd: out,
      encoding: 'buffer',
    });
    // One second of stereo 16-bit samples at 44.1 kHz.
    expect(Math.abs(stdout.length - 44_100 * 2 * 2)).toBeLessThan(4 * 2048);
  });

  it('joins sources: as they are from a list (concat demuxer), or brought to one shape (concat filter)', async () => {
    const mp4 = await source('mp4');
    // The list names the sources relative to its own folder, as the route writes it.
    const same = [];
    for (const name of ['source-a', 'source-b']) {
      await copyFile(mp4.input.path, join(out, name));
      same.push({ ...mp4, input: { ...mp4.input, path: join(out, name) }, signature: '' });
    }
    const list = join(out, 'list.txt');
    await writeFile(list, concatList(same));
    const copied = planCopy(same, 'mp4', list, join(out, 'h.mp4'), 120, 2);
    await runWithLayer(copied);
    expect((await probe(copied.output)).duration).toBeCloseTo(2, 0);

    const mkv = await source('mkv');
    const mixed = [mp4, mkv].map((item) => ({ ...item, signature: '' }));
    const joined = planReencode(mixed, 'webm', join(out, 'i.webm'), 120, 2);
    await runWithLayer(joined);
    const result = await probe(joined.output);
    expect(result.duration).toBeCloseTo(2, 0);
    expect([result.video?.codec_name, result.audio?.codec_name]).toEqual(['vp9', 'opus']);
  });

  it('has no network protocols, no playlist demuxer but concat, and concat lists reach only plain relative names', async () => {
    const { stdout: protocols } = await run(tool('ffmpeg'), ['-hide_banner', '-protocols'], { env: {} });
    expect(protocols).toMatch(/\bfile\b/);
    expect(protocols).not.toMatch(/\b(http|https|tcp|udp|rtmp|concat|subfile|data)\b/);
    const { stdout: formats } = await run(tool('ffmpeg'), ['-hide_banner', '-demuxers'], { env: {} });
    expect(formats).not.toMatch(/\b(hls|sdp|rtsp|dash)\b/);
    const mp4 = await source('mp4');
    for (const entry of [mp4.input.path, 'http://127.0.0.1/x.mp4', '../x.mp4']) {
      const list = join(out, 'unsafe.txt');
      await writeFile(list, `ffconcat version 1.0\nfile '${entry}'\n`);
      const job = planCopy([{ ...mp4, signature: '' }], 'mp4', list, join(out, 'j.mp4'), 120, 1);
      await expect(runWithLayer(job)).rejects.toThrow(/Unsafe file name|Protocol not found|No such file/);
    }
  });
});
