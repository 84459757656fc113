import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ReferenceReading, readByReference } from './media-reference.ts';

/** Every media route, with the body each is sent beside `sourceUrl`. */
export const mediaRoutes = [
  '/audio-convert',
  '/video-extract-audio',
  '/video-convert',
  '/video-thumbnail',
  '/media-info',
] as const;
export type MediaRoute = (typeof mediaRoutes)[number];

const audioOutputs = ['mp3', 'ogg', 'wav', 'flac', 'm4a', 'aac'];
const videoOutputs = ['mp4', 'mkv', 'webm', 'mov', 'avi'];
/** Targets that copy or encode quickly (no VP9), for the run inside `npm test`. */
const quickVideoOutputs = ['mkv', 'mp4', 'avi', 'mov'];
const imageOutputs = ['jpg', 'png', 'webp'];

/** Target formats rotate with the file's place, so the corpus meets every encoder. */
function bodyFor(route: MediaRoute, place: number, quick: boolean): Record<string, unknown> {
  const pick = (list: string[]) => list[place % list.length];
  switch (route) {
    case '/audio-convert':
    case '/video-extract-audio':
      return { outputFormat: pick(audioOutputs) };
    case '/video-convert':
      return { outputFormat: pick(quick ? quickVideoOutputs : videoOutputs) };
    case '/video-thumbnail':
      return { outputFormat: pick(imageOutputs) };
    case '/media-info':
      return {};
  }
}

/** The codes a refusal may carry (API.md: source download, audio and video). */
const refusals = ['unsupported_input_format', 'invalid_source_file', 'no_audio_stream', 'no_video_stream'];

/** What the contract asks of a route for a file the reference reads as `reading`. */
export function expectedOutcome(route: MediaRoute, reading: ReferenceReading): 'success' | string[] {
  if (route === '/media-info') return reading.opens ? 'success' : refusals;
  const needs = route === '/audio-convert' || route === '/video-extract-audio' ? 'audio' : 'video';
  const frames = needs === 'audio' ? reading.audioFrames : reading.videoFrames;
  return frames > 0 ? 'success' : refusals;
}

export interface CorpusAnswer {
  file: string;
  route: MediaRoute;
  status: number;
  error?: { error: string; message: string };
  json?: unknown;
  /** Frames the result decodes to, in the stream the route makes (audio, or video/image). */
  outputFrames?: number;
  /** Request to last byte of the answer. */
  ms: number;
}

/** Runs `work` over `items` with at most `limit` running at once. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Sends every file to every media route, `inFlight` requests at a time, and reads each result back. */
export async function runMatrix(options: {
  gateway: string;
  files: ReadonlyArray<{ name: string; url: string }>;
  headers: Record<string, string>;
  inFlight: number;
  dir: string;
  /** Leave out the slow encoders (VP9). */
  quick?: boolean;
}): Promise<CorpusAnswer[]> {
  const jobs = options.files.flatMap((file, place) => mediaRoutes.map((route) => ({ file, place, route })));
  return pooled(jobs, options.inFlight, async ({ file, place, route }) => {
    const started = performance.now();
    const response = await fetch(`${options.gateway}${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...options.headers },
      body: JSON.stringify({ sourceUrl: file.url, ...bodyFor(route, place, options.quick ?? false) }),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const answer: CorpusAnswer = {
      file: file.name,
      route,
      status: response.status,
      ms: Math.round(performance.now() - started),
    };
    if (response.status !== 200) {
      try {
        answer.error = JSON.parse(body.toString('utf8')) as CorpusAnswer['error'];
      } catch {
        answer.error = { error: 'unparsable', message: body.toString('utf8', 0, 200) };
      }
      return answer;
    }
    if (route === '/media-info') return { ...answer, json: JSON.parse(body.toString('utf8')) };
    const path = join(options.dir, `answer-${place}-${route.slice(1)}`);
    await writeFile(path, body);
    const reading = await readByReference(path);
    const audio = route === '/audio-convert' || route === '/video-extract-audio';
    return { ...answer, outputFrames: audio ? reading.audioFrames : reading.videoFrames };
  });
}
