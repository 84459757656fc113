import { createHash } from 'node:crypto';
import type { FixtureServer } from '../../test/support/fixture-server.ts';
import { type Answer, hasRoute, jsonOf, type Scenario, wrong } from './scenario.ts';

/** The bytes a source path stands for: unique per request, so a mixed-up answer shows. */
const sourceBytes = (n: number) => Buffer.from(`source ${n} `.repeat(40 + (n % 200)));

/**
 * Routes that download: /checksum of unique bytes, and file routes fed one source under a unique
 * name each, whose answer must carry that name back.
 */
export function downloadScenarios(sources: FixtureServer, tone: Buffer, png: Buffer | undefined): Scenario[] {
  sources.route('/blob', (request, response) => {
    const n = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('n'));
    const body = sourceBytes(n);
    response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    response.end(body);
  });
  // Every request asks for the tone under its own name; the answer's file name must carry it back.
  const toneAt = (name: string) =>
    sources.route(`/tone/${name}.wav`, (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': tone.length }).end(tone);
    });
  const fileName = (answer: Answer) =>
    /filename="([^"]+)"/.exec(String(answer.headers['content-disposition']))?.[1];
  const scenarios: Scenario[] = [
    {
      route: '/checksum',
      weight: 3,
      run: async (n, send) => {
        const answer = await send('/checksum', {
          sourceUrl: sources.url(`/blob?n=${n}`),
          algorithm: 'sha256',
        });
        const bytes = sourceBytes(n);
        const body = jsonOf(answer);
        const ok =
          body.hash === createHash('sha256').update(bytes).digest('hex') && body.sizeBytes === bytes.length;
        return ok ? undefined : wrong(`/checksum of source ${n}`, answer);
      },
    },
    {
      route: '/audio-convert',
      weight: 1,
      run: async (n, send) => {
        const answer = await send('/audio-convert', {
          sourceUrl: toneAt(`take-${n}`),
          outputFormat: 'mp3',
          bitrate: 64,
        });
        const ok =
          answer.status === 200 &&
          fileName(answer) === `take-${n}.mp3` &&
          (answer.body.subarray(0, 3).toString('latin1') === 'ID3' || answer.body[0] === 0xff) &&
          Number(answer.headers['content-length']) === answer.body.length;
        return ok ? undefined : wrong(`/audio-convert of take-${n}`, answer);
      },
    },
    {
      route: '/media-info',
      weight: 1,
      run: async (n, send) => {
        const answer = await send('/media-info', { sourceUrl: toneAt(`info-${n}`) });
        const body = jsonOf(answer);
        const ok = body.container === 'wav' && Math.abs(Number(body.durationSeconds) - 0.25) < 0.05;
        return ok ? undefined : wrong(`/media-info of info-${n}`, answer);
      },
    },
  ];
  if (png) {
    const pictureAt = (name: string) =>
      sources.route(`/picture/${name}.png`, (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png);
      });
    scenarios.push({
      route: '/image-convert',
      weight: 2,
      run: async (n, send) => {
        const answer = await send('/image-convert', {
          sourceUrl: pictureAt(`shot-${n}`),
          outputFormat: 'webp',
        });
        const ok =
          answer.status === 200 &&
          fileName(answer) === `shot-${n}.webp` &&
          answer.body.subarray(8, 12).toString('latin1') === 'WEBP';
        return ok ? undefined : wrong(`/image-convert of shot-${n}`, answer);
      },
    });
  }
  return scenarios.filter((scenario) => hasRoute(scenario.route));
}

/** A tiny 16-bit mono WAV of 0.25 s, made here so the script needs no ffmpeg of its own. */
export function toneWav(): Buffer {
  const rate = 8000;
  const samples = rate / 4;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export async function smallPng(): Promise<Buffer | undefined> {
  if (!hasRoute('/image-convert')) return undefined;
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width: 24, height: 16, channels: 3, background: '#2266aa' } })
    .png()
    .toBuffer();
}
