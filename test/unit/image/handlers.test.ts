import { imageSize } from 'image-size';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as convertHandler } from '#functions/image-convert/handler.ts';
import { handler as metadataHandler } from '#functions/image-metadata/handler.ts';
import { handler as optimizeHandler } from '#functions/image-optimize/handler.ts';
import { handler as resizeHandler } from '#functions/image-resize/handler.ts';
import { FixtureServer } from '../../support/fixture-server.ts';
import { apiEvent, call } from '../../support/lambda.ts';
import { ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const server = new FixtureServer();
const urls: Record<string, string> = {};

beforeAll(async () => {
  await fixtures.open();
  await server.start();
  urls.png = server.serve('/pictures/quad.png', await fixtures.pattern('png'), 'image/png');
  urls.heic = server.serve('/pictures/quad.heic', await fixtures.pattern('heic'));
  urls.gif = server.serve('/anim.gif', await fixtures.animation('gif'));
  urls.text = server.serve('/notes.png', 'just some words, not a picture\n', 'image/png');
  urls.pdf = server.serve('/doc.pdf', '%PDF-1.7\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
  const png = await fixtures.pattern('png');
  urls.broken = server.serve('/broken.png', png.subarray(0, Math.floor(png.length / 2)));
  const bomb = Buffer.from(png);
  bomb.writeUInt32BE(100_000, 16);
  bomb.writeUInt32BE(100_000, 20);
  urls.bomb = server.serve('/bomb.png', bomb);
  urls.externalSvg = server.serve(
    '/external.svg',
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image href="http://169.254.169.254/x.png" width="8" height="8"/></svg>',
  );
  urls.missing = server.url('/missing.png');
  urls.redirect = server.route('/moved.png', (_request, response) => {
    response.writeHead(302, { Location: urls.png }).end();
  });
  urls.huge = server.route('/huge.png', (_request, response) => {
    response.writeHead(200, { 'Content-Length': String(50_000_000) }).end();
  });
  urls.invalid = 'ftp://127.0.0.1/quad.png';
  urls.closed = 'http://127.0.0.1:9/quad.png';
});

afterAll(async () => {
  await server.stop();
  await fixtures.close();
});

const errorOf = (answer: Awaited<ReturnType<typeof call>>) =>
  answer.json() as { error: string; message: string };

describe('POST /image-convert', () => {
  it('answers the converted file, named after the source, with jpeg read as jpg', async () => {
    const answer = await call(
      convertHandler,
      apiEvent({ sourceUrl: urls.png, outputFormat: 'jpeg', quality: 90 }),
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/jpeg');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="quad.jpg"');
    expect(answer.headers['Content-Length']).toBe(String(answer.body.length));
    const meta = await sharp(answer.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 64, 48]);
  });

  it('reads a HEIC and writes tif as tiff', async () => {
    const answer = await call(
      convertHandler,
      apiEvent({ sourceUrl: urls.heic, outputFormat: 'tif', width: 32 }),
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/tiff');
    expect(answer.headers['Content-Disposition']).toBe('inline; filename="quad.tiff"');
    expect((await sharp(answer.body).metadata()).width).toBe(32);
  });

  it('writes a multi-size ICO by default sizes', async () => {
    const answer = await call(convertHandler, apiEvent({ sourceUrl: urls.png, outputFormat: 'ico' }));
    expect(answer.headers['Content-Type']).toBe('image/x-icon');
    expect(imageSize(answer.body).images?.map((entry) => entry.width)).toEqual([16, 32, 48, 256]);
  });

  it('refuses heif output, naming avif and webp', async () => {
    const answer = await call(convertHandler, apiEvent({ sourceUrl: urls.png, outputFormat: 'heif' }));
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).error).toBe('unsupported_output_format');
    expect(errorOf(answer).message).toMatch(/avif.*webp|webp.*avif/);
  });

  it('names every offending field', async () => {
    const answer = await call(
      convertHandler,
      apiEvent({
        sourceUrl: urls.png,
        outputFormat: 'pdf',
        quality: 0,
        fit: 'stretch',
        background: 'not-a-colour',
        icoSizes: [512],
        colour: 'red',
      }),
    );
    expect(answer.statusCode).toBe(400);
    const { error, message } = errorOf(answer);
    expect(error).toBe('validation_failed');
    for (const field of [
      'outputFormat:',
      'quality:',
      'fit:',
      'background:',
      'icoSizes.0:',
      'colour: unknown field',
    ]) {
      expect(message).toContain(field);
    }
  });

  it.each([
    ['text bytes', 'text', 'unsupported_input_format', /no format this service reads/],
    ['a PDF', 'pdf', 'unsupported_input_format', /in pdf format/],
    ['a PNG cut in half', 'broken', 'invalid_source_file', /damaged/],
    ['a pixel bomb', 'bomb', 'invalid_source_file', /100000 × 100000/],
    ['an SVG linking an outside image', 'externalSvg', 'invalid_source_file', /external resource/],
    ['a missing source', 'missing', 'source_bad_status', /404/],
    ['a redirect', 'redirect', 'source_redirect', /redirect/],
    ['an ftp URL', 'invalid', 'source_invalid_url', /http/],
    ['a closed port', 'closed', 'source_unreachable', /./],
    ['a source over the free tier', 'huge', 'source_too_large', /pro tier/],
  ])('answers an error for %s', async (_name, key, code, message) => {
    const answer = await call(convertHandler, apiEvent({ sourceUrl: urls[key], outputFormat: 'png' }));
    expect(answer.statusCode).toBe(code === 'source_too_large' ? 413 : 400);
    expect(errorOf(answer).error).toBe(code);
    expect(errorOf(answer).message).toMatch(message);
    expect(errorOf(answer).message).not.toMatch(/\/tmp|fca-|vips|sharp/);
  });
});

describe('POST /image-resize', () => {
  it('resizes and keeps the format of the source', async () => {
    const answer = await call(resizeHandler, apiEvent({ sourceUrl: urls.png, width: 32 }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/png');
    const meta = await sharp(answer.body).metadata();
    expect([meta.width, meta.height]).toEqual([32, 24]);
  });

  it('keeps an animation animated and takes center for centre', async () => {
    const answer = await call(
      resizeHandler,
      apiEvent({ sourceUrl: urls.gif, width: 16, height: 16, fit: 'cover', position: 'center' }),
    );
    expect(answer.statusCode).toBe(200);
    const meta = await sharp(answer.body, { animated: true }).metadata();
    expect([meta.format, meta.pages, meta.pageHeight]).toEqual(['gif', 3, 16]);
  });

  it('asks for width or height', async () => {
    const answer = await call(resizeHandler, apiEvent({ sourceUrl: urls.png, fit: 'cover' }));
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer)).toEqual({
      error: 'validation_failed',
      message: 'width: give width, height or both',
    });
  });
});

describe('POST /image-optimize', () => {
  it('sends both sizes in headers', async () => {
    const answer = await call(optimizeHandler, apiEvent({ sourceUrl: urls.png, outputFormat: 'webp' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['X-Original-Size']).toBe(String((await fixtures.pattern('png')).length));
    expect(answer.headers['X-Output-Size']).toBe(String(answer.body.length));
    expect(Number(answer.headers['X-Output-Size'])).toBeLessThanOrEqual(
      Number(answer.headers['X-Original-Size']),
    );
  });

  it('refuses a lossless jpg', async () => {
    const answer = await call(
      optimizeHandler,
      apiEvent({ sourceUrl: urls.png, outputFormat: 'jpg', lossless: true }),
    );
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).error).toBe('validation_failed');
  });
});

describe('POST /image-metadata', () => {
  it('answers JSON', async () => {
    const answer = await call(metadataHandler, apiEvent({ sourceUrl: urls.gif }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(answer.json()).toMatchObject({ format: 'gif', width: 32, height: 24, pages: 3, animated: true });
  });

  it('answers unsupported_input_format for a PDF', async () => {
    const answer = await call(metadataHandler, apiEvent({ sourceUrl: urls.pdf }));
    expect(errorOf(answer).error).toBe('unsupported_input_format');
  });
});
