import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as audioConvert } from '#functions/audio-convert/handler.ts';
import { handler as mediaInfo } from '#functions/media-info/handler.ts';
import { handler as videoConvert } from '#functions/video-convert/handler.ts';
import { handler as extractAudio } from '#functions/video-extract-audio/handler.ts';
import { handler as videoThumbnail } from '#functions/video-thumbnail/handler.ts';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { apiEvent, call } from '../support/lambda.ts';
import { childMediaProcesses, MediaFixtures } from '../unit/media/fixtures.ts';

const server = new FixtureServer();
const fixtures = new MediaFixtures();

const routes = [
  ['/audio-convert', audioConvert, { outputFormat: 'mp3' }],
  ['/video-convert', videoConvert, { outputFormat: 'mp4' }],
  ['/video-extract-audio', extractAudio, {}],
  ['/video-thumbnail', videoThumbnail, {}],
  ['/media-info', mediaInfo, {}],
] as const;

/** Nothing internal may reach a client: no paths, no tool names, no stack. */
function expectClean(message: string) {
  expect(message).not.toMatch(/\/tmp|fca-|media-fixtures|file:|ffmpeg|ffprobe|\bat \S+:\d+/);
}

beforeAll(async () => {
  await server.start();
  await fixtures.open();
  const mp4 = await fixtures.bytes('mp4');
  const ogg = await fixtures.bytes('ogg');
  const media = await fixtures.save('segment.mp4', mp4);
  server.serve(
    '/live.m3u8',
    `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:${media}\n#EXTINF:1,\n${server.url('/segment.mp4')}\n#EXT-X-ENDLIST\n`,
    'application/vnd.apple.mpegurl',
  );
  server.serve('/list.ffconcat', `ffconcat version 1.0\nfile '${media}'\nfile segment.mp4\n`, 'text/plain');
  server.serve('/segment.mp4', mp4, 'video/mp4');
  server.serve('/noise.mp4', randomBytes(64 * 1024), 'video/mp4');
  server.serve('/truncated.mp4', mp4.subarray(0, Math.floor(mp4.length / 2)), 'video/mp4');
  server.serve('/cut.ogg', ogg.subarray(0, Math.floor(ogg.length / 2)), 'audio/ogg');
});

afterAll(async () => {
  await server.stop();
  await fixtures.close();
});

describe.each(routes)('%s with a source that is not a media file', (_path, handler, options) => {
  it.each([
    ['an HLS playlist', '/live.m3u8'],
    ['an ffconcat list', '/list.ffconcat'],
    ['random bytes', '/noise.mp4'],
  ])('refuses %s with 400 unsupported_input_format', async (_what, path) => {
    const answer = await call(handler, apiEvent({ sourceUrl: server.url(path), ...options }));
    expect(answer.statusCode).toBe(400);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('unsupported_input_format');
    expectClean(body.message);
  });

  it.each([
    ['an mp4 cut in half', '/truncated.mp4'],
    ['an Ogg cut in half', '/cut.ogg'],
  ])('answers %s quickly with 400 invalid_source_file', async (_what, path) => {
    const started = performance.now();
    const answer = await call(handler, apiEvent({ sourceUrl: server.url(path), ...options }));
    // A reader that waited for the missing half would hit the route's limit; a refusal never does.
    expect(performance.now() - started).toBeLessThan(29_000);
    expect(answer.statusCode).toBe(400);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('invalid_source_file');
    expectClean(body.message);
  });
});

describe('after failures', () => {
  it('no ffmpeg process and no workspace is left behind', async () => {
    // A temporary folder of this test's own: test files running alongside make and remove their
    // workspaces in the shared one, so only an empty folder of ours says nothing was left.
    const scratch = await mkdtemp(join(tmpdir(), 'media-errors-'));
    vi.stubEnv('TMPDIR', scratch);
    try {
      const workspace = new Workspace();
      expect(await workspace.dir()).toMatch(new RegExp(`^${scratch}/fca-`));
      await workspace.dispose();
      for (const [, handler, options] of routes) {
        await call(handler, apiEvent({ sourceUrl: server.url('/truncated.mp4'), ...options }));
        await call(handler, apiEvent({ sourceUrl: server.url('/segment.mp4'), ...options }));
      }
      expect(await childMediaProcesses()).toEqual([]);
      expect(await readdir(scratch)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
