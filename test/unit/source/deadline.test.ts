import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as checksum } from '#functions/checksum/handler.ts';
import { handler as imageMetadata } from '#functions/image-metadata/handler.ts';
import { handler as mediaInfo } from '#functions/media-info/handler.ts';
import { handler as pdfInfo } from '#functions/pdf-info/handler.ts';
import { ApiError } from '#shared/errors.ts';
import { DEADLINE_MARGIN_MS, downloadSource } from '#shared/source/download.ts';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../../support/fixture-server.ts';
import { apiEvent, call, lambdaContext } from '../../support/lambda.ts';

/**
 * JSON routes run for 29 s (API Gateway's limit) while a download may take 30 s by default: the
 * download has to give up before the function is stopped, or the caller gets a 500 instead of 504.
 */
describe('a source that stalls past the time the function has left', () => {
  const sources = new FixtureServer();
  let stalling: string;

  beforeAll(async () => {
    await sources.start();
    // Headers and a first chunk, then nothing: the download waits until someone gives up.
    stalling = sources.route('/slow/file.bin', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '1000' });
      response.write(Buffer.alloc(10));
    });
  });

  afterAll(async () => {
    await sources.stop();
  });

  // The default download timeout (30 s) stays; only the function's remaining time is short.
  const functionTimeMs = DEADLINE_MARGIN_MS + 300;

  it.each([
    ['/checksum', checksum, { algorithm: 'sha256' }],
    ['/image-metadata', imageMetadata, {}],
    ['/pdf-info', pdfInfo, {}],
    ['/media-info', mediaInfo, {}],
  ])('%s answers 504 source_timeout, not 500', async (_path, handler, fields) => {
    const answer = await call(
      handler,
      apiEvent({ sourceUrl: stalling, ...fields }),
      lambdaContext(functionTimeMs),
    );
    expect(answer.statusCode).toBe(504);
    expect(answer.json()).toEqual({
      error: 'source_timeout',
      message: expect.stringMatching(
        /^The source did not send the whole file within 0\.\d+ s, the time this request had left\.$/,
      ),
    });
  });

  /** Downloads the stalling source with these time limits; the rejection it ends with. */
  const stallingDownload = async (limits: { timeoutMs?: number; deadline: number }) => {
    const workspace = new Workspace();
    const download = downloadSource(stalling, {
      workspace,
      maxBytes: 10_000,
      tier: 'free',
      accept: 'any',
      ...limits,
    });
    const error = await download.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    await workspace.dispose();
    return error;
  };

  it('keeps the configured timeout when the request has time enough', async () => {
    expect(await stallingDownload({ timeoutMs: 200, deadline: Date.now() + 60_000 })).toEqual(
      new ApiError('source_timeout', 'The source did not send the whole file within 0.2 s.'),
    );
  });

  it('gives up at once when the request has no time left', async () => {
    expect(await stallingDownload({ deadline: Date.now() + DEADLINE_MARGIN_MS / 2 })).toEqual(
      new ApiError(
        'source_timeout',
        'The source did not send the whole file within 0 s, the time this request had left.',
      ),
    );
  });
});
