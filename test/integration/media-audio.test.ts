import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as audioConvert } from '#functions/audio-convert/handler.ts';
import { handler as extractAudio } from '#functions/video-extract-audio/handler.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type Answer, apiEvent, call } from '../support/lambda.ts';
import { MediaFixtures, packetSizes, probe, type Recipe, topLevelBoxes } from '../unit/media/fixtures.ts';

const server = new FixtureServer();
const fixtures = new MediaFixtures();

const audioFormats = ['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a'] as const;
type AudioFormat = (typeof audioFormats)[number];

/** What ffprobe must read back from each output format: container and codec. */
const expected: Record<AudioFormat, { formatName: string; codec: string; contentType: string }> = {
  mp3: { formatName: 'mp3', codec: 'mp3', contentType: 'audio/mpeg' },
  wav: { formatName: 'wav', codec: 'pcm_s16le', contentType: 'audio/wav' },
  ogg: { formatName: 'ogg', codec: 'opus', contentType: 'audio/ogg' },
  aac: { formatName: 'aac', codec: 'aac', contentType: 'audio/aac' },
  flac: { formatName: 'flac', codec: 'flac', contentType: 'audio/flac' },
  m4a: { formatName: 'mov,mp4,m4a,3gp,3g2,mj2', codec: 'aac', contentType: 'audio/mp4' },
};

/** Source codec of each fixture, and the targets that hold it as it is. */
const sourceCodec: Record<AudioFormat, string> = {
  mp3: 'mp3',
  wav: 'pcm_s16le',
  ogg: 'opus',
  aac: 'aac',
  flac: 'flac',
  m4a: 'aac',
};
const copies = (source: AudioFormat, target: AudioFormat) => sourceCodec[source] === expected[target].codec;

let saved = 0;
/** Writes an answer's body to a file and reads it back with ffprobe. */
async function readBack(answer: Answer) {
  saved += 1;
  const path = await fixtures.save(`answer-${saved}`, answer.body);
  return { path, probed: await probe(path) };
}

/** A copied stream has the same packets; a container may wrap each in a header of fixed size (ADTS). */
function sameStream(a: number[], b: number[]): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  const offset = (a[0] ?? 0) - (b[0] ?? 0);
  return a.every((size, index) => size - (b[index] ?? 0) === offset);
}

const url = (recipe: Recipe) => server.url(`/media/clip-${recipe}.${recipe.replace(/[A-Z].*/, '')}`);

beforeAll(async () => {
  await server.start();
  await fixtures.open();
  const recipes: Recipe[] = [...audioFormats, 'mp4', 'webm', 'silentVideo', 'longAudio'];
  for (const recipe of recipes) {
    server.serve(new URL(url(recipe)).pathname, await fixtures.bytes(recipe));
  }
});

afterAll(async () => {
  await server.stop();
  await fixtures.close();
});

describe('POST /audio-convert: every audio format to every other', () => {
  const pairs = audioFormats.flatMap((source) => audioFormats.map((target) => [source, target] as const));

  it.each(pairs)('%s → %s', async (source, target) => {
    const answer = await call(audioConvert, apiEvent({ sourceUrl: url(source), outputFormat: target }));
    expect(answer.statusCode, answer.body.toString().slice(0, 200)).toBe(200);
    expect(answer.headers['Content-Type']).toBe(expected[target].contentType);
    expect(answer.headers['Content-Disposition']).toBe(`inline; filename="clip-${source}.${target}"`);
    expect(answer.headers['Content-Length']).toBe(String(answer.body.length));

    const { path, probed } = await readBack(answer);
    expect(probed.formatName).toBe(expected[target].formatName);
    expect(probed.streams).toHaveLength(1);
    expect(probed.audio?.codec_name).toBe(expected[target].codec);
    expect(Math.abs(probed.duration - 1)).toBeLessThan(0.2);
    if (copies(source, target)) {
      const original = await packetSizes(await fixtures.path(source), 'a:0');
      expect(sameStream(await packetSizes(path, 'a:0'), original)).toBe(true);
    }
    if (target === 'm4a') {
      // Faststart: the index (moov) before the media data (mdat).
      const boxes = await topLevelBoxes(path);
      expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
      expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    }
  });
});

describe('POST /audio-convert options', () => {
  it('sets bitrate, sample rate and channels', async () => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url('flac'), outputFormat: 'mp3', bitrate: 64, sampleRate: 22050, channels: 1 }),
    );
    expect(answer.statusCode).toBe(200);
    const { audio } = (await readBack(answer)).probed;
    expect(audio).toMatchObject({ codec_name: 'mp3', sample_rate: '22050', channels: 1 });
    expect(Number((audio as { bit_rate?: string }).bit_rate)).toBe(64_000);
  });

  it('re-encodes a stream that would fit when a bitrate is asked', async () => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url('m4a'), outputFormat: 'aac', bitrate: 48 }),
    );
    const { path, probed } = await readBack(answer);
    expect(probed.audio?.codec_name).toBe('aac');
    const original = await packetSizes(await fixtures.path('m4a'), 'a:0');
    expect(sameStream(await packetSizes(path, 'a:0'), original)).toBe(false);
  });

  it('writes Ogg with Vorbis for a sample rate Opus cannot run at', async () => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url('wav'), outputFormat: 'ogg', sampleRate: 44100 }),
    );
    expect((await readBack(answer)).probed.audio).toMatchObject({
      codec_name: 'vorbis',
      sample_rate: '44100',
    });
  });

  it.each([
    ['re-encoded', 'wav', 'flac'],
    ['copied', 'mp3', 'mp3'],
  ] as const)('cuts with start and duration (%s)', async (_how, source, target) => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url(source), outputFormat: target, start: 0.25, duration: 0.5 }),
    );
    expect(answer.statusCode).toBe(200);
    expect(Math.abs((await readBack(answer)).probed.duration - 0.5)).toBeLessThan(0.1);
  });

  it('takes the sound of a video', async () => {
    const answer = await call(audioConvert, apiEvent({ sourceUrl: url('webm'), outputFormat: 'flac' }));
    const { probed } = await readBack(answer);
    expect(probed.streams.map((stream) => stream.codec_name)).toEqual(['flac']);
  });

  it('refuses a start at or past the end with 400 invalid_range', async () => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url('wav'), outputFormat: 'mp3', start: 5 }),
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'invalid_range' });
  });

  it('refuses a bitrate for lossless output, naming the field', async () => {
    const answer = await call(
      audioConvert,
      apiEvent({ sourceUrl: url('wav'), outputFormat: 'flac', bitrate: 128 }),
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      error: 'validation_failed',
      message: expect.stringMatching(/^bitrate: /),
    });
  });
});

describe('POST /video-extract-audio', () => {
  it.each(audioFormats)('writes the sound track as %s', async (target) => {
    const answer = await call(extractAudio, apiEvent({ sourceUrl: url('mp4'), outputFormat: target }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe(expected[target].contentType);
    expect(answer.headers['Content-Disposition']).toBe(`inline; filename="clip-mp4.${target}"`);
    const { path, probed } = await readBack(answer);
    expect(probed.formatName).toBe(expected[target].formatName);
    expect(probed.streams.map((stream) => stream.codec_type)).toEqual(['audio']);
    expect(probed.audio?.codec_name).toBe(expected[target].codec);
    expect(Math.abs(probed.duration - 1)).toBeLessThan(0.2);
    if (target === 'aac' || target === 'm4a') {
      const original = await packetSizes(await fixtures.path('mp4'), 'a:0');
      expect(sameStream(await packetSizes(path, 'a:0'), original)).toBe(true);
    }
  });

  it('writes mp3 by default, and copies Opus out of WebM into Ogg', async () => {
    const mp3 = await call(extractAudio, apiEvent({ sourceUrl: url('mp4') }));
    expect(mp3.headers['Content-Type']).toBe('audio/mpeg');
    expect((await readBack(mp3)).probed.audio?.codec_name).toBe('mp3');
    const ogg = await call(extractAudio, apiEvent({ sourceUrl: url('webm'), outputFormat: 'ogg' }));
    const { path } = await readBack(ogg);
    const original = await packetSizes(await fixtures.path('webm'), 'a:0');
    expect(sameStream(await packetSizes(path, 'a:0'), original)).toBe(true);
  });

  it('answers 400 no_audio_stream for a silent video', async () => {
    for (const handler of [extractAudio, audioConvert]) {
      const answer = await call(handler, apiEvent({ sourceUrl: url('silentVideo'), outputFormat: 'mp3' }));
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ error: 'no_audio_stream' });
    }
  });
});

describe('the tier duration limit', () => {
  it('refuses a free-tier source just over 120 s before converting, naming the tier that lifts it', async () => {
    const started = performance.now();
    const answer = await call(audioConvert, apiEvent({ sourceUrl: url('longAudio'), outputFormat: 'wav' }));
    expect(answer.statusCode).toBe(413);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('media_too_long');
    expect(body.message).toMatch(
      /^The source lasts 121(\.\d)? s, over the 120 s limit of the free tier\. The pro tier/,
    );
    // Refused from the probe, not after a conversion: within the route's limit on any machine.
    expect(performance.now() - started).toBeLessThan(29_000);
  });

  it('converts the same source for the pro tier', async () => {
    const answer = await call(
      extractAudio,
      apiEvent({ sourceUrl: url('longAudio'), outputFormat: 'mp3' }, { tier: 'pro', callerId: 'key:pro' }),
    );
    expect(answer.statusCode).toBe(200);
    expect(Math.abs((await readBack(answer)).probed.duration - 121)).toBeLessThan(1);
  });
});
