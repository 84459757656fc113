import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFileConversionClient } from '../../clients/typescript/client.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type RunningGateway, startLocalGateway } from '../support/gateway.ts';

/**
 * The typed client of clients/typescript, used as a caller's code would use it, against the local
 * gateway: JSON answers typed, defaulted fields left out, file answers as Blobs, async jobs as
 * their own answer, refusals as the API's `{error, message}`. The raw openapi-fetch calls below are
 * the ones the README shows for callers who generate their own types.
 */

const run = promisify(execFile);

describe('the TypeScript client through the local gateway', () => {
  let gateway: RunningGateway;
  const fixtures = new FixtureServer();
  let photo = '';

  beforeAll(async () => {
    await fixtures.start();
    // The source image is made by ImageMagick, not by the service's own image library.
    const path = join(tmpdir(), `client-source-${process.pid}.png`);
    await run('convert', ['-size', '48x32', 'gradient:red-blue', path]);
    photo = fixtures.serve('/photo.png', await readFile(path), 'image/png');
    fixtures.route('/hook', (_request, response) => {
      response.writeHead(204).end();
    });
    gateway = await startLocalGateway({
      API_KEYS: 'client-pro-key:pro',
      WEBHOOK_SECRET: 'webhook-secret-for-the-client-test',
      SOURCE_ALLOW_PRIVATE: 'true',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fixtures.stop();
  });

  it('answers a JSON route with its typed answer, the defaulted fields left out', async () => {
    const client = createFileConversionClient({ baseUrl: gateway.url });
    const answer = await client.json('/slugify', { text: 'Héllo Wörld!' });
    expect(answer).toEqual({ ok: true, data: { slug: 'hello-world' } });
    if (answer.ok) expect(answer.data.slug.toUpperCase()).toBe('HELLO-WORLD');
  });

  it('answers a file route with the file as a Blob, its name and type', async () => {
    const client = createFileConversionClient({ baseUrl: gateway.url });
    const answer = await client.file('/image-convert', { sourceUrl: photo, outputFormat: 'webp' });
    if (!answer.ok || answer.kind !== 'file') throw new Error(`not a file: ${JSON.stringify(answer)}`);
    expect(answer.file).toBeInstanceOf(Blob);
    expect(answer.type).toBe('image/webp');
    expect(answer.name).toBe('photo.webp');
    const bytes = Buffer.from(await answer.file.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
  });

  it('answers a refusal with the typed {error, message}', async () => {
    const client = createFileConversionClient({ baseUrl: gateway.url });
    const nothingToKeep = await client.json('/slugify', { text: '!!!' });
    expect(nothingToKeep).toEqual({
      ok: false,
      status: 400,
      error: { error: 'invalid_input', message: expect.any(String) },
    });
    const badFormat = await client.file('/image-convert', {
      sourceUrl: photo,
      outputFormat: 'bmp2' as 'bmp',
    });
    expect(badFormat.ok || badFormat.error.error).toBe('validation_failed');
  });

  it('answers a request with callbackUrl as the async job it started, and reads the job', async () => {
    const client = createFileConversionClient({ baseUrl: gateway.url, apiKey: 'client-pro-key' });
    const answer = await client.file('/image-convert', {
      sourceUrl: photo,
      outputFormat: 'png',
      callbackUrl: fixtures.url('/hook'),
    });
    if (!answer.ok || answer.kind !== 'job') throw new Error(`not a job: ${JSON.stringify(answer)}`);
    expect(answer.job).toEqual({
      jobId: expect.any(String),
      status: 'queued',
      statusUrl: expect.any(String),
    });
    await vi.waitFor(
      async () => {
        const state = await client.job(answer.job.jobId);
        if (!state.ok) throw new Error(state.error.message);
        expect(state.job.status).toBe('succeeded');
      },
      { timeout: 30_000, interval: 200 },
    );
  });

  it('works with openapi-fetch alone as the README shows: parseAs blob for a file route', async () => {
    const client = createFileConversionClient({ baseUrl: gateway.url });
    const { data, error, response } = await client.raw.POST('/image-convert', {
      body: { sourceUrl: photo, outputFormat: 'jpg' },
      parseAs: 'blob',
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toBeInstanceOf(Blob);
    const bytes = Buffer.from(await (data as Blob).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });
});
