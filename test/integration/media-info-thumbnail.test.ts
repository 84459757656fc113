import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as mediaInfo } from '#functions/media-info/handler.ts';
import { handler as videoThumbnail } from '#functions/video-thumbnail/handler.ts';
import { mediaInfoResult } from '#shared/media/schemas.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type Answer, apiEvent, call } from '../support/lambda.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';
import { MediaFixtures, probe, type Recipe } from '../unit/media/fixtures.ts';

const run = promisify(execFile);
const server = new FixtureServer();
const fixtures = new MediaFixtures();

const url = (recipe: Recipe) => server.url(`/media/clip-${recipe}.bin`);

let saved = 0;
async function readBack(answer: Answer) {
  saved += 1;
  const path = await fixtures.save(`answer-${saved}`, answer.body);
  return { path, probed: await probe(path) };
}

/** The frame ffmpeg itself decodes at a time, as PNG: what a thumbnail at that time must equal. */
async function referenceFrame(recipe: Recipe, at: number): Promise<Buffer> {
  const { stdout } = await run(
    referenceFfmpeg,
    [
      '-v',
      'error',
      '-ss',
      String(at),
      '-i',
      await fixtures.path(recipe),
      '-frames:v',
      '1',
      '-c:v',
      'png',
      '-f',
      'image2pipe',
      '-',
    ],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

beforeAll(async () => {
  await server.start();
  await fixtures.open();
  const recipes: Recipe[] = ['mp4', 'webm', 'mp3', 'rotated'];
  for (const recipe of recipes) server.serve(new URL(url(recipe)).pathname, await fixtures.bytes(recipe));
});

afterAll(async () => {
  await server.stop();
  await fixtures.close();
});

describe('POST /media-info', () => {
  it('describes a video: container, duration, size, bit rate and both streams', async () => {
    const answer = await call(mediaInfo, apiEvent({ sourceUrl: url('mp4') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const info = mediaInfoResult.parse(answer.json());
    expect(info.container).toBe('mp4');
    expect(info.durationSeconds).toBeCloseTo(1, 1);
    expect(info.sizeBytes).toBe((await fixtures.bytes('mp4')).length);
    expect(info.bitRate).toBeGreaterThan(0);
    expect(info.streams).toEqual([
      expect.objectContaining({ type: 'video', codec: 'h264', width: 160, height: 120, fps: 25 }),
      expect.objectContaining({ type: 'audio', codec: 'aac', sampleRate: 44100, channels: 2 }),
    ]);
    expect(info.streams[0]?.bitRate).toBeGreaterThan(0);
  });

  it('describes WebM and audio-only files by the format their bytes show', async () => {
    const webm = mediaInfoResult.parse((await call(mediaInfo, apiEvent({ sourceUrl: url('webm') }))).json());
    expect(webm.container).toBe('webm');
    expect(webm.streams.map((stream) => stream.codec)).toEqual(['vp9', 'opus']);
    const mp3 = mediaInfoResult.parse((await call(mediaInfo, apiEvent({ sourceUrl: url('mp3') }))).json());
    expect(mp3).toMatchObject({
      container: 'mp3',
      streams: [{ type: 'audio', codec: 'mp3', sampleRate: 44100 }],
    });
    expect(Object.keys(mp3.streams[0] ?? {})).not.toContain('width');
  });
});

describe('POST /video-thumbnail', () => {
  it('captures at 10 % of the duration by default, as jpg', async () => {
    const answer = await call(videoThumbnail, apiEvent({ sourceUrl: url('mp4') }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/jpeg');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="clip-mp4.jpg"');
    expect((await readBack(answer)).probed.video).toMatchObject({
      codec_name: 'mjpeg',
      width: 160,
      height: 120,
    });
    const png = await call(videoThumbnail, apiEvent({ sourceUrl: url('mp4'), outputFormat: 'png' }));
    expect(png.body.equals(await referenceFrame('mp4', 0.1))).toBe(true);
  });

  it('captures the frame at the asked time', async () => {
    const early = await call(
      videoThumbnail,
      apiEvent({ sourceUrl: url('mp4'), at: 0.2, outputFormat: 'png' }),
    );
    const late = await call(
      videoThumbnail,
      apiEvent({ sourceUrl: url('webm'), at: 0.8, outputFormat: 'png' }),
    );
    expect(early.body.equals(await referenceFrame('mp4', 0.2))).toBe(true);
    expect(late.body.equals(await referenceFrame('webm', 0.8))).toBe(true);
    expect(early.body.equals(await referenceFrame('mp4', 0.8))).toBe(false);
  });

  it.each([
    ['webp', 'image/webp', 'webp'],
    ['jpeg', 'image/jpeg', 'mjpeg'],
  ] as const)(
    'writes %s, scaled to a width with the aspect kept',
    async (outputFormat, contentType, codec) => {
      const answer = await call(videoThumbnail, apiEvent({ sourceUrl: url('mp4'), outputFormat, width: 64 }));
      expect(answer.headers['Content-Type']).toBe(contentType);
      expect((await readBack(answer)).probed.video).toMatchObject({
        codec_name: codec,
        width: 64,
        height: 48,
      });
    },
  );

  it('shows a rotated video upright', async () => {
    const answer = await call(videoThumbnail, apiEvent({ sourceUrl: url('rotated'), outputFormat: 'png' }));
    expect((await readBack(answer)).probed.video).toMatchObject({ width: 120, height: 160 });
  });

  it('refuses a time at or past the end with 400 invalid_range, and audio with 400 no_video_stream', async () => {
    const late = await call(videoThumbnail, apiEvent({ sourceUrl: url('mp4'), at: 1.5 }));
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ error: 'invalid_range', message: expect.stringMatching(/^at: /) });
    const audio = await call(videoThumbnail, apiEvent({ sourceUrl: url('mp3') }));
    expect(audio.statusCode).toBe(400);
    expect(audio.json()).toMatchObject({ error: 'no_video_stream' });
  });
});
