import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { referenceFfmpeg, referenceFfprobe } from '../support/reference-tools.ts';

/**
 * /video-convert to gif and webp, /media-concat, /audio-normalize and /audio-waveform through the
 * local gateway over real HTTP, on clips made by Debian's ffmpeg, their answers read back by
 * ffprobe, ffmpeg's ebur128 meter, ImageMagick and webpmux.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let count = 0;
const urls: Record<string, string> = {};

const post = (path: string, body: unknown, key: string = SHARED_KEYS.enterprise) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': key });

const x264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];

/** One second of a flat colour with a tone, encoded the same way each time (so two of them join as they are). */
const colourClip = (colour: string, hz: number, size = '160x120', rate = 25, sampleRate = 44100) => [
  ...['-f', 'lavfi', '-i', `color=c=${colour}:size=${size}:rate=${rate}:duration=1`],
  ...['-f', 'lavfi', '-i', `sine=frequency=${hz}:sample_rate=${sampleRate}:duration=1`],
  ...x264,
  ...['-c:a', 'aac', '-b:a', '64k', '-shortest', '-f', 'mp4'],
];

const recipes: Record<string, string[]> = {
  'red.mp4': colourClip('red', 440),
  'blue.mp4': colourClip('blue', 880),
  'green.mp4': colourClip('green', 660, '96x64', 15, 22050),
  'clip.mp4': [...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25:duration=2'], ...x264, '-f', 'mp4'],
  // A quiet voice-like tone: 3.5 s (loudness is gated in 400 ms blocks), about −35 LUFS.
  'quiet.wav': [
    ...['-f', 'lavfi', '-i', 'sine=frequency=300:sample_rate=44100:duration=3.5'],
    ...['-af', 'volume=-26dB', '-c:a', 'pcm_s16le', '-f', 'wav'],
  ],
  // One second of silence, then one of a tone at half scale.
  'half.wav': [
    ...['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono:d=1', '-f', 'lavfi', '-i', 'sine=f=500:r=8000:d=1'],
    ...['-filter_complex', '[1]volume=4.0[t];[0][t]concat=n=2:v=0:a=1', '-c:a', 'pcm_s16le', '-f', 'wav'],
  ],
  // 61 s of silence at 8 kHz: two of them pass the free tier's two minutes.
  'long.wav': [...['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono:d=61'], '-c:a', 'pcm_s16le', '-f', 'wav'],
};

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'media-tools-'));
  await sources.start();
  for (const [name, args] of Object.entries(recipes)) {
    const path = join(dir, name);
    await run(referenceFfmpeg, ['-v', 'error', '-y', ...args, path]);
    urls[name] = sources.serve(`/${name}`, await readFile(path));
  }
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Saves a 200 answer of the content type and returns its path. */
async function answerFile(response: Response, contentType: string, extension: string): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toBe(contentType);
  count += 1;
  const path = join(dir, `answer-${count}.${extension}`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

async function expectError(response: Response, status: number, code: string, text: RegExp) {
  const body = (await response.json()) as { error: string; message: string };
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBe(code);
  expect(body.message).toMatch(text);
}

/** The colour of the frame at `seconds`, as one averaged RGB pixel, by Debian's ffmpeg. */
async function colourAt(path: string, seconds: number): Promise<[number, number, number]> {
  const { stdout: pixel } = await run(
    referenceFfmpeg,
    [
      ...['-v', 'error', '-ss', String(seconds), '-i', path, '-frames:v', '1'],
      ...['-vf', 'scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    ],
    { encoding: 'buffer' },
  );
  return [pixel[0] ?? 0, pixel[1] ?? 0, pixel[2] ?? 0];
}

async function probe(path: string) {
  const { stdout } = await run(referenceFfprobe, [
    ...['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path],
  ]);
  return JSON.parse(stdout) as {
    format: { duration: string };
    streams: Array<{
      codec_type: string;
      codec_name: string;
      width?: number;
      height?: number;
      r_frame_rate: string;
      sample_rate?: string;
    }>;
  };
}

/** Integrated loudness by ffmpeg's EBU R128 meter. */
async function loudness(path: string): Promise<number> {
  const { stderr } = await run(referenceFfmpeg, [
    '-nostats',
    '-i',
    path,
    '-af',
    'ebur128',
    '-f',
    'null',
    '-',
  ]);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  return Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)?.[1]);
}

describe('/video-convert to animations', () => {
  it('writes a GIF on a palette of the clip: 10 fps, at most 480 wide, looping', async () => {
    const path = await answerFile(
      await post('/video-convert', { sourceUrl: urls['clip.mp4'], outputFormat: 'gif' }),
      'image/gif',
      'gif',
    );
    const { stdout } = await run('identify', ['-format', '%w %h\n', path]);
    const frames = stdout.trim().split('\n');
    expect(frames).toHaveLength(20);
    expect(frames[0]).toBe('480 270');
    const { stdout: verbose } = await run('identify', ['-verbose', `${path}[0]`]);
    expect(verbose).toMatch(/Iterations: 0/);
  });

  it('writes an animated WebP that plays once when loop is false', async () => {
    const path = await answerFile(
      await post('/video-convert', {
        sourceUrl: urls['clip.mp4'],
        outputFormat: 'webp',
        width: 200,
        fps: 5,
        loop: false,
      }),
      'image/webp',
      'webp',
    );
    const { stdout } = await run('webpmux', ['-info', path]);
    expect(stdout).toMatch(/Canvas size: 200 x 112/);
    expect(stdout).toMatch(/Loop Count\s*:\s*1/);
    expect(stdout).toMatch(/Number of frames: 10/);
  });

  it('refuses loop for a video container, and more frames than an animation holds', async () => {
    await expectError(
      await post('/video-convert', { sourceUrl: urls['clip.mp4'], outputFormat: 'mp4', loop: true }),
      400,
      'validation_failed',
      /loop/,
    );
    await expectError(
      await post('/video-convert', { sourceUrl: urls['long.wav'], outputFormat: 'gif' }),
      400,
      'no_video_stream',
      /video stream/,
    );
  });
});

describe('/media-concat', () => {
  it('joins alike sources as they are, in order', async () => {
    const path = await answerFile(
      await post('/media-concat', { sources: [urls['blue.mp4'], urls['red.mp4']], outputFormat: 'mp4' }),
      'video/mp4',
      'mp4',
    );
    const { format, streams } = await probe(path);
    expect(Number(format.duration)).toBeCloseTo(2, 0);
    expect(streams.map((stream) => stream.codec_name).sort()).toEqual(['aac', 'h264']);
    const [first, second] = [await colourAt(path, 0.5), await colourAt(path, 1.5)];
    expect(first[2]).toBeGreaterThan(200);
    expect(first[0]).toBeLessThan(60);
    expect(second[0]).toBeGreaterThan(200);
    expect(second[2]).toBeLessThan(60);
  });

  it('brings differing sources to the first one’s size, frame rate and sample rate', async () => {
    const path = await answerFile(
      await post('/media-concat', { sources: [urls['green.mp4'], urls['red.mp4']], outputFormat: 'webm' }),
      'video/webm',
      'webm',
    );
    const { format, streams } = await probe(path);
    const video = streams.find((stream) => stream.codec_type === 'video');
    expect([video?.width, video?.height, video?.r_frame_rate]).toEqual([96, 64, '15/1']);
    expect(Number(format.duration)).toBeCloseTo(2, 0);
    const [first, second] = [await colourAt(path, 0.5), await colourAt(path, 1.5)];
    expect(first[1]).toBeGreaterThan(first[0] + 40);
    expect(second[0]).toBeGreaterThan(200);
  });

  it('answers a missing stream and a sum over the tier’s length by the source and the limit', async () => {
    await expectError(
      await post('/media-concat', { sources: [urls['red.mp4'], urls['half.wav']], outputFormat: 'mp4' }),
      400,
      'no_video_stream',
      /^sources\.1: /,
    );
    await expectError(
      await post(
        '/media-concat',
        { sources: [urls['long.wav'], urls['long.wav']], outputFormat: 'wav' },
        SHARED_KEYS.free,
      ),
      413,
      'media_too_long',
      /^Together the sources last 122 s, over the 120 s limit of the free tier/,
    );
  });
});

describe('/audio-normalize', () => {
  it('brings a quiet recording to −16 LUFS and names both loudnesses', async () => {
    const before = await loudness(join(dir, 'quiet.wav'));
    const response = await post('/audio-normalize', { sourceUrl: urls['quiet.wav'] });
    const input = Number(response.headers.get('x-input-loudness'));
    const output = Number(response.headers.get('x-output-loudness'));
    const path = await answerFile(response, 'audio/wav', 'wav');
    expect(Math.abs(input - before)).toBeLessThanOrEqual(1);
    expect(Math.abs(output + 16)).toBeLessThanOrEqual(1);
    expect(Math.abs((await loudness(path)) + 16)).toBeLessThanOrEqual(1);
    const { streams } = await probe(path);
    expect(streams[0]?.sample_rate).toBe('44100');
  });

  it('reaches another target in another format', async () => {
    const path = await answerFile(
      await post('/audio-normalize', { sourceUrl: urls['quiet.wav'], outputFormat: 'flac', targetLufs: -23 }),
      'audio/flac',
      'flac',
    );
    expect(Math.abs((await loudness(path)) + 23)).toBeLessThanOrEqual(1);
  });
});

describe('/audio-waveform', () => {
  it('lists the peaks of each slice as json', async () => {
    const response = await post('/audio-waveform', {
      sourceUrl: urls['half.wav'],
      outputFormat: 'json',
      points: 4,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      durationSeconds: number;
      sampleRate: number;
      channels: number;
      peaks: number[][];
    };
    expect(body).toMatchObject({ durationSeconds: 2, sampleRate: 8000, channels: 1 });
    expect(body.peaks).toHaveLength(4);
    expect(body.peaks[0]).toEqual([0, 0]);
    expect(body.peaks[3]![1]).toBeCloseTo(0.5, 1);
    expect(body.peaks[3]![0]).toBeCloseTo(-0.5, 1);
  });

  it('draws a png: nothing where it is silent, the colour where it is loud', async () => {
    const path = await answerFile(
      await post('/audio-waveform', {
        sourceUrl: urls['half.wav'],
        width: 200,
        height: 50,
        color: 'red',
        background: 'white',
      }),
      'image/png',
      'png',
    );
    const pixel = async (x: number, y: number) =>
      (await run('convert', [path, '-format', `%[pixel:p{${x},${y}}]`, 'info:'])).stdout;
    expect((await run('identify', ['-format', '%w %h', path])).stdout).toBe('200 50');
    // Silence is a one-pixel line on the middle; the tone at half scale fills the middle half.
    expect(await pixel(50, 10)).toMatch(/white|255,255,255/);
    expect(await pixel(150, 25)).toMatch(/red|255,0,0/);
    expect(await pixel(150, 15)).toMatch(/red|255,0,0/);
    expect(await pixel(150, 5)).toMatch(/white|255,255,255/);
  });

  it('writes svg, and refuses points for an image', async () => {
    const response = await post('/audio-waveform', {
      sourceUrl: urls['half.wav'],
      outputFormat: 'svg',
      width: 100,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(await response.text()).toMatch(/^<svg [^>]*width="100" height="200"/);
    await expectError(
      await post('/audio-waveform', { sourceUrl: urls['half.wav'], points: 10 }),
      400,
      'validation_failed',
      /points/,
    );
  });
});
