import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { statusOf } from '#shared/http/errors.ts';
import { downloadSource } from '#shared/source/download.ts';
import { tiers } from '#shared/tiers.ts';
import { formatBytes } from '#shared/units.ts';
import { downloadFixture } from '../support/download-fixture.ts';
import { failure } from '../support/http-error.ts';

/**
 * More edges of a download: the tier named for a declared length exactly at a higher tier's limit,
 * the status text quoted, a connection that breaks mid-body, the file's permissions, what the
 * request asks for, the format check, and no timer left behind.
 */
const fixture = downloadFixture();
const { server, path, options } = fixture;

const servePng = (name: string) => server.serve(path(name), fixture.png(), 'image/png');

describe('a declared length over the limit', () => {
  it('exactly at the pro limit: a free caller is pointed at the pro tier, not beyond', async () => {
    const length = tiers.pro.maxSourceBytes;
    const url = server.route(path('big.png'), (_request, response) => {
      response.writeHead(200, { 'Content-Length': length });
      response.flushHeaders();
    });
    const error = await failure(downloadSource(url, options({ maxBytes: tiers.free.maxSourceBytes })));
    expect(error.code).toBe('source_too_large');
    expect(error.message).toBe(
      `The source is ${formatBytes(length)}, over the ${formatBytes(tiers.free.maxSourceBytes)} limit of the free tier. ` +
        `The pro tier accepts sources up to ${formatBytes(tiers.pro.maxSourceBytes)}.`,
    );
  });
});

describe('a status other than 200', () => {
  it.each([
    [404, 'The source answered HTTP 404 Not Found; only 200 is accepted.'],
    [299, 'The source answered HTTP 299; only 200 is accepted.'],
  ])('HTTP %d reads "%s"', async (status, message) => {
    const url = server.route(path('status.png'), (_request, response) => response.writeHead(status).end());
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_bad_status');
    expect(error.message).toBe(message);
  });
});

describe('a connection that breaks off mid-body', () => {
  it('is 400 source_unreachable saying so, with the socket error as cause, and leaves no file', async () => {
    const url = server.route(path('cut.png'), (request, response) => {
      response.writeHead(200, { 'Content-Length': 900 });
      response.write(fixture.png(), () => setTimeout(() => request.socket.destroy(), 50));
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_unreachable');
    expect(statusOf(error)).toBe(400);
    expect(error.message).toBe('The connection to the source broke off before the whole file arrived.');
    expect(error.cause).toBeInstanceOf(Error);
    await expect(stat(await fixture.workspace().file('source'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a failure of the code that watches the bytes', () => {
  it('is passed on as it is, not dressed up as a broken connection', async () => {
    const broken = new Error('the checksum stage failed');
    const onChunk = () => {
      throw broken;
    };
    await expect(downloadSource(servePng('watched.png'), options({ onChunk }))).rejects.toBe(broken);
  });
});

describe('what a download leaves and asks for', () => {
  it('writes the file readable by its owner only', async () => {
    const source = await downloadSource(servePng('private.png'), options());
    expect((await stat(source.path)).mode & 0o777).toBe(0o600);
  });

  it('accepts any type and asks for no compression, naming itself', async () => {
    let headers: Record<string, unknown> = {};
    const url = server.route(path('headers.png'), (request, response) => {
      headers = request.headers;
      response.writeHead(200, { 'Content-Length': fixture.png().length }).end(fixture.png());
    });
    await downloadSource(url, options());
    expect(headers).toMatchObject({
      accept: '*/*',
      'accept-encoding': 'identity',
      'user-agent': 'file-conversion-api',
    });
  });

  it('leaves no timer running once it is done', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = timers();
    await downloadSource(servePng('timer.png'), options({ timeoutMs: 600_000 }));
    await expect.poll(timers, { timeout: 5000 }).toBeLessThanOrEqual(before);
  });
});

describe('the format check', () => {
  it("with accept 'any' nothing is sniffed: the format is left undefined", async () => {
    const source = await downloadSource(servePng('any.png'), options({ accept: 'any' }));
    expect(source.format).toBeUndefined();
    expect(source.sizeBytes).toBe(fixture.png().length);
  });

  it('a format the operation does not take is 400 unsupported_input_format naming both', async () => {
    const error = await failure(downloadSource(servePng('wrong.png'), options({ accept: ['pdf', 'svg'] })));
    expect(error.code).toBe('unsupported_input_format');
    expect(error.message).toBe('The source is in png format; this operation accepts pdf, svg.');
  });

  it('bytes of no known format are named so', async () => {
    const url = server.serve(path('noise.png'), 'plain words, no format');
    const error = await failure(downloadSource(url, options()));
    expect(error.message).toBe('The source is in no format this service reads; this operation accepts png.');
  });

  it("a refusal after the caller's own abort is still that refusal, not the abort", async () => {
    const caller = new AbortController();
    const identify = async () => {
      caller.abort(new Error('caller gone'));
      return undefined;
    };
    const error = await failure(
      downloadSource(servePng('late-abort.png'), options({ signal: caller.signal, identify })),
    );
    expect(error.code).toBe('unsupported_input_format');
  });
});
