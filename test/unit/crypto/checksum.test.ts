import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '#functions/checksum/handler.ts';
import { FixtureServer } from '../../support/fixture-server.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const server = new FixtureServer();
// Bigger than one socket read, so the digest really is fed chunk by chunk.
const file = randomBytes(3 * 1024 * 1024 + 17);

beforeAll(async () => {
  await server.start();
  server.serve('/file.bin', file);
  server.route('/chunked', (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.write('hello ');
    setTimeout(() => response.end('world'), 20);
  });
  server.route('/moved', (_request, response) => response.writeHead(302, { Location: '/file.bin' }).end());
  server.route('/huge', (_request, response) => {
    response.writeHead(200, { 'Content-Length': String(25_000_000) });
    response.end();
  });
});
afterAll(() => server.stop());

const post = async (body: unknown) => {
  const answer = await call(handler, apiEvent(body));
  return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
};

describe('POST /checksum', () => {
  it('hashes the downloaded bytes with sha256 by default', async () => {
    expect(await post({ sourceUrl: server.url('/file.bin') })).toEqual({
      status: 200,
      body: {
        algorithm: 'sha256',
        hash: createHash('sha256').update(file).digest('hex'),
        sizeBytes: file.length,
      },
    });
  });

  it.each(['md5', 'sha3-512', 'blake2b512'] as const)('hashes with %s', async (algorithm) => {
    const answer = await post({ sourceUrl: server.url('/file.bin'), algorithm });
    expect(answer.body.hash).toBe(createHash(algorithm).update(file).digest('hex'));
  });

  it('hashes a body that arrives in pieces without a length', async () => {
    expect((await post({ sourceUrl: server.url('/chunked'), algorithm: 'sha1' })).body).toEqual({
      algorithm: 'sha1',
      hash: createHash('sha1').update('hello world').digest('hex'),
      sizeBytes: 11,
    });
  });

  it.each([
    ['source_invalid_url', 'ftp://example.com/file', 400],
    ['source_bad_status', '/missing', 400],
    ['source_redirect', '/moved', 400],
    ['source_too_large', '/huge', 413],
  ])('answers %s', async (code, path, status) => {
    const answer = await post({ sourceUrl: path.startsWith('/') ? server.url(path) : path });
    expect(answer.status).toBe(status);
    expect(answer.body.error).toBe(code);
  });

  it('answers validation_failed for an unknown algorithm', async () => {
    const answer = await post({ sourceUrl: server.url('/file.bin'), algorithm: 'crc32' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation_failed');
  });
});
