import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import type { FileResult } from '#shared/http/respond.ts';
import { sendToOutputUrl } from '#shared/jobs/export.ts';
import { FixtureServer } from '../../support/fixture-server.ts';

/**
 * Sending a result to `outputUrl` over real loopback HTTP: what a destination that takes its time
 * or sits on a private address gets (the gateway tests cover the others through the routes).
 */

const destination = new FixtureServer();
let dir = '';
let file: FileResult;
const open: Array<() => void> = [];

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ApiError ? error.toJSON() : String(error)),
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-'));
  await writeFile(join(dir, 'result.txt'), 'converted bytes');
  file = { path: join(dir, 'result.txt'), contentType: 'text/plain', fileName: 'result.txt' };
  await destination.start();
  // Reads the whole body, then never answers.
  destination.route('/slow', (request, response) => {
    request.resume();
    open.push(() => response.destroy());
  });
});

afterAll(async () => {
  for (const close of open) close();
  await destination.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('sendToOutputUrl', () => {
  it('gives up on a destination that does not answer within its time: 502 output_upload_failed', async () => {
    const error = await failure(
      sendToOutputUrl(file, destination.url('/slow?sig=1'), { timeoutMs: 300, allowPrivate: true }),
    );
    expect(error).toEqual({
      error: 'output_upload_failed',
      message: expect.stringMatching(/did not take the result within 0\.3 s/),
    });
  });

  it('gives up when the request has no time left, whatever the timeout', async () => {
    const error = await failure(
      sendToOutputUrl(file, destination.url('/slow'), { deadline: Date.now() + 1200, allowPrivate: true }),
    );
    expect(error).toMatchObject({ error: 'output_upload_failed' });
  });

  it('refuses a destination on a private address where private ones are not allowed, sending nothing', async () => {
    const error = await failure(sendToOutputUrl(file, destination.url('/slow'), { allowPrivate: false }));
    expect(error).toMatchObject({ error: 'source_blocked_address' });
  });

  it('answers 502 for a destination that cannot be reached', async () => {
    const error = await failure(sendToOutputUrl(file, 'http://127.0.0.1:9/out', { allowPrivate: true }));
    expect(error).toMatchObject({
      error: 'output_upload_failed',
      message: expect.stringContaining('refused'),
    });
  });
});
