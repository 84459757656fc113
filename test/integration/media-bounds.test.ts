import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { hugeFrameAvi } from '../support/huge-frames.ts';
import { referenceFfmpeg, referenceFfprobe } from '../support/reference-tools.ts';

const run = promisify(execFile);

/**
 * Video frame bounds (contract: Resource bounds) through the local gateway over real HTTP: a few
 * megabytes of MJPEG at 16000 × 16000, which once drove ffmpeg to 22.5 GB, and a 16 × 64 clip asked
 * for sizes whose other side passes 8192. Beside them, the bounds of the encoders and options (issue
 * 29): a frame inside the bound that an encoder cannot write, audio bitrates an encoder cannot take
 * at the output's channels and sample rate, and option values that would leave nothing to write.
 * Every source is made by Debian's ffmpeg (and sharp), the service runs the layer's build.
 */
/** The shared gateway's enterprise key: the free tier's 10 requests a minute are shared by every file. */
const keyed = { 'x-api-key': SHARED_KEYS.enterprise };

describe('video frame size through the local gateway', () => {
  const sources = new FixtureServer();
  const workspace = new Workspace();
  let gateway: RunningGateway;
  let huge: string;
  let narrow: string;
  let large: string;
  let mono: string;
  let monoVideo: string;
  let recorder: string;

  beforeAll(async () => {
    const dir = await workspace.dir();
    const narrowPath = join(dir, 'narrow.mp4');
    await run(referenceFfmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=16x64:rate=10:duration=1'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'mp4', '-y', narrowPath],
    ]);
    const monoPath = join(dir, 'mono.wav');
    await run(referenceFfmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=44100'],
      ...['-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav', '-y', monoPath],
    ]);
    const monoVideoPath = join(dir, 'mono.mkv');
    await run(referenceFfmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10:duration=1'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=44100'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-ac', '1', '-c:a', 'flac'],
      ...['-f', 'matroska', '-y', monoVideoPath],
    ]);
    // A recorder's WebM: written as a stream (no duration in its header, no frame durations), a
    // frame only every half second, sound to 4.24 s.
    const { stdout: recorderBytes } = await run(
      referenceFfmpeg,
      [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=2:duration=4.24'],
        ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=4.24:sample_rate=48000'],
        ...['-c:v', 'libvpx', '-b:v', '100k', '-c:a', 'libopus', '-f', 'webm', 'pipe:1'],
      ],
      { encoding: 'buffer' },
    );
    await sources.start();
    recorder = sources.serve('/recorder.webm', recorderBytes);
    huge = sources.serve('/huge.avi', await readFile(await hugeFrameAvi(dir)));
    large = sources.serve('/large.avi', await readFile(await hugeFrameAvi(dir, 8000)));
    narrow = sources.serve('/narrow.mp4', await readFile(narrowPath));
    mono = sources.serve('/mono.wav', await readFile(monoPath));
    monoVideo = sources.serve('/mono.mkv', await readFile(monoVideoPath));
    gateway = sharedGateway();
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
    await workspace.dispose();
  });

  const post = async (path: string, body: Record<string, unknown>) => {
    const started = performance.now();
    const response = await postJson(`${gateway.url}${path}`, body, keyed);
    return {
      status: response.status,
      body: (await response.json()) as { error: string; message: string },
      seconds: (performance.now() - started) / 1000,
    };
  };

  it.each([
    ['/video-convert', { outputFormat: 'webm' }],
    ['/video-convert', { outputFormat: 'mp4', width: 640 }],
    ['/video-thumbnail', {}],
  ])(
    '%s on 16000 × 16000 MJPEG frames (%j) answers 400 invalid_source_file naming the limit',
    async (path, options) => {
      const answer = await post(path, { sourceUrl: huge, ...options });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_source_file');
      // The probe's decoders refuse the frames (so they are never allocated) and report no size.
      expect(answer.body.message).toMatch(/could not be read: .* larger than 8192 × 8192 pixels/);
      // Refused from the header: nothing is decoded, so no machine is slow enough to take a minute.
      expect(answer.seconds).toBeLessThan(60);
    },
  );

  it('a 16 × 64 clip asked for width 7680 (7680 × 30720) answers 400 validation_failed naming the limit', async () => {
    const answer = await post('/video-convert', { sourceUrl: narrow, outputFormat: 'webm', width: 7680 });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation_failed');
    expect(answer.body.message).toMatch(/^width: .*7680 × 30720 pixels, over the limit of 8192 pixels/);
    expect(answer.body.message).toContain('at most 2048');
  });

  it('a thumbnail of the same clip at width 3840 (3840 × 15360) answers 400 validation_failed', async () => {
    const answer = await post('/video-thumbnail', { sourceUrl: narrow, width: 3840 });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation_failed');
    expect(answer.body.message).toContain('3840 × 15360');
  });

  it('the clip at a width that fits converts', async () => {
    const answer = await postJson(`${gateway.url}/video-thumbnail`, { sourceUrl: narrow, width: 64 }, keyed);
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/jpeg');
  });

  const urls = () => ({ 'mono.wav': mono, 'mono.mkv': monoVideo });
  const refusal = async (response: Response) => {
    expect(response.status).toBe(400);
    return (await response.json()) as { error: string; message: string };
  };

  it('8000 × 8000 MJPEG to webm answers 400 naming the VP9 bound and a width that fits, before any work', async () => {
    const body = await refusal(
      await postJson(`${gateway.url}/video-convert`, { sourceUrl: large, outputFormat: 'webm' }, keyed),
    );
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/^outputFormat: the source's frames are 8000 × 8000 .*VP9 \(webm\)/);
    expect(body.message).toContain('a width of at most 5760');
  });

  it.each([
    ['/audio-convert', 'mono.wav', { bitrate: 320 }, 'opus', '256'],
    ['/audio-convert', 'mono.wav', { bitrate: 96, sampleRate: 22050 }, 'vorbis', '90'],
    ['/video-extract-audio', 'mono.mkv', { bitrate: 320 }, 'opus', '256'],
  ])(
    '%s of %s to ogg with %j writes %s at the nearest bitrate it takes, named in X-Audio-Bitrate',
    async (path, source, options, codec, kbps) => {
      const response = await postJson(
        `${gateway.url}${path}`,
        {
          sourceUrl: urls()[source as 'mono.wav' | 'mono.mkv'],
          outputFormat: 'ogg',
          ...options,
        },
        keyed,
      );
      expect(response.status, await response.clone().text()).toBe(200);
      expect(response.headers.get('x-audio-bitrate')).toBe(kbps);
      const output = join(await workspace.dir(), `answer-${codec}-${kbps}.ogg`);
      await writeFile(output, Buffer.from(await response.arrayBuffer()));
      const { stdout } = await run(referenceFfprobe, [
        ...['-v', 'error', '-select_streams', 'a:0', '-count_frames'],
        ...['-show_entries', 'stream=codec_name,channels,nb_read_frames', '-of', 'json', output],
      ]);
      const stream = (JSON.parse(stdout) as { streams: Record<string, unknown>[] }).streams[0];
      expect(stream).toMatchObject({ codec_name: codec, channels: 1 });
      expect(Number(stream?.nb_read_frames)).toBeGreaterThan(0);
    },
  );

  it('a bitrate for ogg at 96 000 Hz (Vorbis takes none there) answers 400 validation_failed naming bitrate', async () => {
    const body = await refusal(
      await postJson(
        `${gateway.url}/audio-convert`,
        {
          sourceUrl: mono,
          outputFormat: 'ogg',
          bitrate: 32,
          sampleRate: 96000,
        },
        keyed,
      ),
    );
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/^bitrate: ogg at 96000 Hz is written with Vorbis/);
  });

  it.each([
    ['/audio-convert', 'mono.wav', { outputFormat: 'mp3', duration: 5e-324 }, 'duration'],
    ['/video-convert', 'mono.mkv', { outputFormat: 'mp4', fps: 5e-324 }, 'fps'],
    ['/video-convert', 'mono.mkv', { outputFormat: 'mp4', fps: 0.5 }, 'fps'],
  ])(
    '%s of %s with %j answers 400 validation_failed naming %s, not the file',
    async (path, source, options, field) => {
      const body = await refusal(
        await postJson(
          `${gateway.url}${path}`,
          {
            sourceUrl: urls()[source as 'mono.wav' | 'mono.mkv'],
            ...options,
          },
          keyed,
        ),
      );
      expect(body.error).toBe('validation_failed');
      expect(body.message.startsWith(`${field}: `)).toBe(true);
    },
  );

  it('a WebM that states no duration (4.24 s of packets) converts to an mp4 as long as it, not longer', async () => {
    const response = await postJson(
      `${gateway.url}/video-convert`,
      { sourceUrl: recorder, outputFormat: 'mp4' },
      keyed,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    const output = join(await workspace.dir(), 'recorder.mp4');
    await writeFile(output, Buffer.from(await response.arrayBuffer()));
    const { stdout } = await run(referenceFfprobe, [
      ...['-v', 'error', '-show_entries', 'format=duration:stream=duration', '-of', 'json', output],
    ]);
    const read = JSON.parse(stdout) as { format: { duration: string }; streams: { duration: string }[] };
    // One frame of the 25-a-second grid at most: before, the last frame lasted half a second (4.5 s).
    expect(Math.abs(Number(read.format.duration) - 4.24)).toBeLessThan(0.045);
    for (const stream of read.streams) expect(Number(stream.duration)).toBeLessThanOrEqual(4.28);
  });
});
