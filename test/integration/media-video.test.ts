import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as videoConvert } from '#functions/video-convert/handler.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type Answer, apiEvent, call } from '../support/lambda.ts';
import { MediaFixtures, packetSizes, probe, type Recipe, topLevelBoxes } from '../unit/media/fixtures.ts';

const server = new FixtureServer();
const fixtures = new MediaFixtures();

const videoFormats = ['mp4', 'webm', 'mkv', 'mov', 'avi'] as const;
type VideoFormat = (typeof videoFormats)[number];

const container: Record<VideoFormat, { formatName: string; contentType: string }> = {
  mp4: { formatName: 'mov,mp4,m4a,3gp,3g2,mj2', contentType: 'video/mp4' },
  mov: { formatName: 'mov,mp4,m4a,3gp,3g2,mj2', contentType: 'video/quicktime' },
  webm: { formatName: 'matroska,webm', contentType: 'video/webm' },
  mkv: { formatName: 'matroska,webm', contentType: 'video/x-matroska' },
  avi: { formatName: 'avi', contentType: 'video/x-msvideo' },
};

/** The fixtures' codecs (see fixtures.ts) and what each target container holds as it is. */
const sourceCodecs: Record<VideoFormat, { video: string; audio: string }> = {
  mp4: { video: 'h264', audio: 'aac' },
  mov: { video: 'h264', audio: 'aac' },
  mkv: { video: 'h264', audio: 'mp3' },
  webm: { video: 'vp9', audio: 'opus' },
  avi: { video: 'mpeg4', audio: 'mp3' },
};
const holds: Record<
  VideoFormat,
  { video: string[]; audio: string[]; encodes: { video: string; audio: string } }
> = {
  mp4: { video: ['h264', 'mpeg4'], audio: ['aac', 'mp3'], encodes: { video: 'h264', audio: 'aac' } },
  mov: { video: ['h264', 'mpeg4'], audio: ['aac', 'mp3'], encodes: { video: 'h264', audio: 'aac' } },
  mkv: {
    video: ['h264', 'vp9', 'mpeg4'],
    audio: ['aac', 'mp3', 'opus'],
    encodes: { video: 'h264', audio: 'aac' },
  },
  webm: { video: ['vp9'], audio: ['opus'], encodes: { video: 'vp9', audio: 'opus' } },
  avi: { video: ['mpeg4'], audio: ['mp3'], encodes: { video: 'mpeg4', audio: 'mp3' } },
};

let saved = 0;
async function readBack(answer: Answer) {
  saved += 1;
  const path = await fixtures.save(`answer-${saved}`, answer.body);
  return { path, probed: await probe(path) };
}

const url = (recipe: Recipe) => server.url(`/media/clip-${recipe}`);

async function convert(recipe: Recipe, options: Record<string, unknown>) {
  const answer = await call(videoConvert, apiEvent({ sourceUrl: url(recipe), ...options }));
  expect(answer.statusCode, answer.body.toString().slice(0, 200)).toBe(200);
  return { answer, ...(await readBack(answer)) };
}

beforeAll(async () => {
  await server.start();
  await fixtures.open();
  const recipes: Recipe[] = [...videoFormats, 'mp3', 'rotated', 'wide'];
  for (const recipe of recipes) server.serve(`/media/clip-${recipe}`, await fixtures.bytes(recipe));
});

afterAll(async () => {
  await server.stop();
  await fixtures.close();
});

describe('POST /video-convert: every container to every other', () => {
  const pairs = videoFormats.flatMap((source) => videoFormats.map((target) => [source, target] as const));

  it.each(pairs)('%s → %s', async (source, target) => {
    const { answer, path, probed } = await convert(source, { outputFormat: target });
    expect(answer.headers['Content-Type']).toBe(container[target].contentType);
    expect(answer.headers['Content-Disposition']).toBe(`inline; filename="clip-${source}.${target}"`);
    expect(probed.formatName).toBe(container[target].formatName);
    expect(probed.video).toMatchObject({ width: 160, height: 120 });
    expect(Math.abs(probed.duration - 1)).toBeLessThan(0.2);

    const from = sourceCodecs[source];
    const copyVideo = holds[target].video.includes(from.video);
    const copyAudio = holds[target].audio.includes(from.audio);
    expect(probed.video?.codec_name).toBe(copyVideo ? from.video : holds[target].encodes.video);
    expect(probed.audio?.codec_name).toBe(copyAudio ? from.audio : holds[target].encodes.audio);
    const original = await fixtures.path(source);
    if (copyVideo) expect(await packetSizes(path, 'v:0')).toEqual(await packetSizes(original, 'v:0'));
    if (copyAudio) expect(await packetSizes(path, 'a:0')).toEqual(await packetSizes(original, 'a:0'));
    if (target === 'mp4' || target === 'mov') {
      // Faststart: the index before the media data, so playback starts before the download ends.
      // The mp4 and mov fixtures have theirs after it, so a copy proves the move too.
      const boxes = await topLevelBoxes(path);
      expect(boxes).toContain('mdat');
      expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    }
  });
});

describe('POST /video-convert transforms', () => {
  it('scales with the aspect kept', async () => {
    const { probed } = await convert('mp4', { outputFormat: 'mp4', width: 100 });
    expect(probed.video).toMatchObject({ codec_name: 'h264', width: 100, height: 76 });
  });

  it('fits inside a box given both sides, in even dimensions, from an odd-sized 4:4:4 source', async () => {
    const { probed } = await convert('wide', { outputFormat: 'mp4', width: 200, height: 90 });
    expect(probed.video).toMatchObject({ width: 160, height: 90 });
    const unscaled = await convert('wide', { outputFormat: 'webm' });
    expect(unscaled.probed.video).toMatchObject({ codec_name: 'vp9', width: 322, height: 182 });
  });

  it('turns a rotated phone video upright where the container cannot carry the rotation', async () => {
    const { probed } = await convert('rotated', { outputFormat: 'mkv' });
    expect(probed.video).toMatchObject({ codec_name: 'h264', width: 120, height: 160 });
  });

  it('changes the frame rate', async () => {
    const { probed } = await convert('mkv', { outputFormat: 'mp4', fps: 10 });
    expect(probed.video?.avg_frame_rate).toBe('10/1');
  });

  it('cuts exactly with start and duration', async () => {
    const { probed } = await convert('mp4', { outputFormat: 'mov', start: 0.2, duration: 0.5 });
    expect(Math.abs(probed.duration - 0.5)).toBeLessThan(0.1);
  });

  it('drops the sound when muted', async () => {
    const { probed, path } = await convert('mp4', { outputFormat: 'mkv', mute: true });
    expect(probed.streams.map((stream) => stream.codec_type)).toEqual(['video']);
    expect(await packetSizes(path, 'v:0')).toEqual(await packetSizes(await fixtures.path('mp4'), 'v:0'));
  });

  it('re-encodes when a quality is asked, smaller for low than for high', async () => {
    const low = await convert('mkv', { outputFormat: 'mp4', quality: 'low' });
    const high = await convert('mkv', { outputFormat: 'mp4', quality: 'high' });
    expect(await packetSizes(low.path, 'v:0')).not.toEqual(
      await packetSizes(await fixtures.path('mkv'), 'v:0'),
    );
    expect(low.answer.body.length).toBeLessThan(high.answer.body.length);
  });

  it('answers 400 no_video_stream for audio', async () => {
    const answer = await call(videoConvert, apiEvent({ sourceUrl: url('mp3'), outputFormat: 'mp4' }));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'no_video_stream' });
  });

  it('names every bad field', async () => {
    const answer = await call(
      videoConvert,
      apiEvent({ sourceUrl: url('mp4'), outputFormat: 'flv', width: 7, quality: 'best' }),
    );
    expect(answer.statusCode).toBe(400);
    const { message } = answer.json() as { message: string };
    for (const field of ['outputFormat:', 'width:', 'quality:']) expect(message).toContain(field);
  });
});
