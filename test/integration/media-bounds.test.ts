import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { hugeFrameAvi } from '../support/huge-frames.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';

const run = promisify(execFile);

/**
 * Video frame bounds (contract: Resource bounds) through the local gateway over real HTTP: a few
 * megabytes of MJPEG at 16000 × 16000, which once drove ffmpeg to 22.5 GB, and a 16 × 64 clip asked
 * for sizes whose other side passes 8192.
 */
/** The shared gateway's key: the free tier's 10 requests a minute are shared by every file. */
const key = { 'x-api-key': SHARED_KEYS.enterprise };

describe('video frame size through the local gateway', () => {
  const sources = new FixtureServer();
  const workspace = new Workspace();
  let gateway: RunningGateway;
  let huge: string;
  let narrow: string;

  beforeAll(async () => {
    const dir = await workspace.dir();
    const narrowPath = join(dir, 'narrow.mp4');
    await run(referenceFfmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=16x64:rate=10:duration=1'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'mp4', '-y', narrowPath],
    ]);
    await sources.start();
    huge = sources.serve('/huge.avi', await readFile(await hugeFrameAvi(dir)));
    narrow = sources.serve('/narrow.mp4', await readFile(narrowPath));
    gateway = sharedGateway();
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
    await workspace.dispose();
  });

  const post = async (path: string, body: Record<string, unknown>) => {
    const started = performance.now();
    const response = await postJson(`${gateway.url}${path}`, body, key);
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
    const answer = await postJson(`${gateway.url}/video-thumbnail`, { sourceUrl: narrow, width: 64 }, key);
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/jpeg');
  });
});
