import { describe, expect, it } from 'vitest';
import { statusOf } from '#shared/http/errors.ts';
import { downloadSource } from '#shared/source/download.ts';
import { tiers } from '#shared/tiers.ts';
import { formatBytes } from '#shared/units.ts';
import { downloadFixture } from '../support/download-fixture.ts';
import { failure } from '../support/http-error.ts';

/**
 * The exact edges of a download: a size exactly at the limit, the first status of the redirect
 * range, the tier named when a source without a length runs over, and the request that goes out.
 */
const fixture = downloadFixture();
const { server, path, options } = fixture;

/** A PNG padded with trailing bytes to exactly `size`. */
const pngOf = (size: number) => Buffer.concat([fixture.png(), Buffer.alloc(size - fixture.png().length)]);

describe('a source exactly at the size limit', () => {
  it('is accepted when its Content-Length says exactly the limit', async () => {
    const url = server.route(path('exact.png'), (_request, response) => {
      response.writeHead(200, { 'Content-Length': 1000 }).end(pngOf(1000));
    });
    expect(await downloadSource(url, options())).toMatchObject({ sizeBytes: 1000, format: 'png' });
  });

  it('is accepted when it is sent without a length and ends exactly at the limit', async () => {
    const url = server.route(path('exact-chunked.png'), (_request, response) => {
      response.writeHead(200);
      response.write(fixture.png());
      response.end(Buffer.alloc(1000 - fixture.png().length));
    });
    expect(await downloadSource(url, options())).toMatchObject({ sizeBytes: 1000 });
  });

  it('is refused from its head when the Content-Length is one byte over', async () => {
    const url = server.route(path('over.png'), (_request, response) => {
      response.writeHead(200, { 'Content-Length': 1001 });
      response.flushHeaders();
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_too_large');
    expect(error.message).toMatch(/^The source is 1 kB, over the 1 kB limit of the free tier\./);
  });
});

describe('a source sent without a length that runs over the tier limit', () => {
  it('tells a free caller which higher tier takes it, never the free tier itself', async () => {
    const chunk = Buffer.alloc(256 * 1024);
    const url = server.route(path('endless.png'), (request, response) => {
      response.writeHead(200);
      response.write(fixture.png());
      const more = () => {
        while (!response.destroyed && response.write(chunk)) {}
      };
      response.on('drain', more);
      request.socket.once('close', () => response.off('drain', more));
      more();
    });
    const maxBytes = tiers.free.maxSourceBytes;
    const error = await failure(downloadSource(url, options({ maxBytes })));
    expect(error.code).toBe('source_too_large');
    expect(statusOf(error)).toBe(413);
    expect(error.message).toBe(
      `The source is larger than the ${formatBytes(maxBytes)} limit of the free tier. ` +
        `The pro tier accepts sources up to ${formatBytes(tiers.pro.maxSourceBytes)}.`,
    );
  });
});

describe('the status of the answer', () => {
  it.each([300, 399])('HTTP %d is a redirect, which is not followed', async (status) => {
    const url = server.route(path('moved.png'), (_request, response) => {
      response.writeHead(status, { Location: server.url('/elsewhere.png') }).end();
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_redirect');
    expect(error.message).toContain(`(HTTP ${status})`);
  });

  it.each([204, 299, 400])('HTTP %d is a bad status, not a redirect', async (status) => {
    const url = server.route(path('odd.png'), (_request, response) => {
      response.writeHead(status).end();
    });
    const error = await failure(downloadSource(url, options()));
    expect(error.code).toBe('source_bad_status');
    expect(error.message).toContain(`HTTP ${status}`);
  });
});

describe('the request that goes out', () => {
  it('asks for the bytes as stored (accept-encoding: identity), so sizes and formats are of the file itself', async () => {
    let headers: Record<string, unknown> = {};
    const url = server.route(path('plain.png'), (request, response) => {
      headers = request.headers;
      response.writeHead(200, { 'Content-Length': fixture.png().length }).end(fixture.png());
    });
    await downloadSource(url, options());
    expect(headers['accept-encoding']).toBe('identity');
    expect(headers['user-agent']).toBe('file-conversion-api');
  });
});
