import { describe, expect, it } from 'vitest';
import { handler } from '#functions/formats/handler.ts';
import { formatCatalogue } from '#shared/routes/catalogue.ts';
import { formatsView } from '#shared/routes/system.ts';
import { formatCategoryNames } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const catalogue = formatCatalogue(routes);
const operations = Object.values(catalogue).flatMap((category) => category.operations);

describe('GET /formats', () => {
  it('answers the catalogue per category, with the format aliases', async () => {
    const answer = await call(handler, apiEvent(undefined, { method: 'GET', path: '/formats' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const body = formatsView.parse(answer.json());
    expect(Object.keys(body.categories)).toEqual([...formatCategoryNames]);
    expect(body.aliases).toEqual({ jpeg: 'jpg', tif: 'tiff', heif: 'heic' });
    // /barcode-read reads PDF pages too.
    expect(body.categories.image.inputs).toEqual([...imageInputFormats, 'pdf']);
    expect(body.categories.image.outputs).not.toContain('heic');
    expect(body.categories.pdf.outputs).toEqual(expect.arrayContaining(['pdf', 'zip', 'png', 'jpg', 'webp']));
    // /media-concat joins audio into video containers too; /audio-waveform draws png and svg.
    expect(body.categories.audio.outputs).toEqual([
      ...['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a', 'json'],
      ...['mp4', 'webm', 'mkv', 'mov', 'avi', 'png', 'svg'],
    ]);
    expect(body.categories.video.outputs).toEqual(expect.arrayContaining(['gif', 'webp']));
    const convert = body.categories.image.operations.find((operation) => operation.path === '/image-convert');
    expect(convert?.options?.outputFormat).toEqual([
      'jpg',
      'png',
      'webp',
      'avif',
      'gif',
      'tiff',
      'bmp',
      'ico',
      'svg',
    ]);
  });

  it('states each category as the union of its operations', () => {
    for (const category of Object.values(catalogue)) {
      expect(category.inputs).toEqual([
        ...new Set(category.operations.flatMap((operation) => operation.inputs)),
      ]);
      expect(category.outputs).toEqual([
        ...new Set(category.operations.flatMap((operation) => operation.outputs)),
      ]);
    }
  });
});

describe('the catalogue, read from the route table', () => {
  it('lists every POST route that converts, and only those (POST /uploads converts nothing)', () => {
    const listed = [...new Set(operations.map((operation) => operation.path))].sort();
    const posts = routes.filter((route) => route.method === 'POST').map((route) => route.path);
    expect(listed).toEqual(posts.filter((path) => path !== '/uploads').sort());
  });

  it('takes the options of an operation from the values its request schema accepts, in canonical spelling', () => {
    const find = (path: string) => operations.find((operation) => operation.path === path)!;
    // pdf-to-image accepts `jpeg` as an alias of `jpg`: listed once, canonically.
    expect(find('/pdf-to-image').options?.outputFormat).toEqual(['png', 'jpg', 'webp']);
    expect(find('/hash').options).toMatchObject({
      algorithm: ['md5', 'sha1', 'sha256', 'sha384', 'sha512', 'sha3-256', 'sha3-512', 'blake2b512'],
      encoding: ['hex', 'base64'],
    });
    expect(find('/uuid').options?.version).toEqual([4, 7]);
    expect(find('/video-convert').options).toMatchObject({ quality: ['low', 'medium', 'high'] });
    // An operation without enumerated fields lists no options.
    expect(find('/pdf-merge').options).toBeUndefined();
  });

  it('lists /media-info under audio and video', () => {
    const paths = (name: 'audio' | 'video') => catalogue[name].operations.map((operation) => operation.path);
    expect(paths('audio')).toContain('/media-info');
    expect(paths('video')).toContain('/media-info');
  });
});
