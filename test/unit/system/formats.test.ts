import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handler } from '#functions/formats/handler.ts';
import {
  canonicalFormat,
  type FormatOperation,
  formatCatalogue,
  formatCategoryNames,
  imageInputFormats,
} from '#shared/formats.ts';
import { formatsView } from '#shared/routes/system.ts';
import { routes } from '#shared/routes.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const operations = Object.values(formatCatalogue).flatMap((category) => category.operations);
const routeAt = (path: string) => routes.find((route) => route.path === path && route.method === 'POST');

/** Every value an enumerated JSON schema accepts: enum, const, and their anyOf/oneOf unions. */
function acceptedValues(schema: unknown): (string | number)[] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as {
    enum?: (string | number)[];
    const?: string | number;
    anyOf?: unknown[];
    oneOf?: unknown[];
  };
  return [
    ...(node.enum ?? []),
    ...(node.const !== undefined ? [node.const] : []),
    ...[...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap(acceptedValues),
  ];
}

const canonicalSet = (values: readonly (string | number)[]) =>
  [...new Set(values.map((value) => (typeof value === 'string' ? canonicalFormat(value) : value)))].sort();

describe('GET /formats', () => {
  it('answers the catalogue per category, with the format aliases', async () => {
    const answer = await call(handler, apiEvent(undefined, { method: 'GET', path: '/formats' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    const body = formatsView.parse(answer.json());
    expect(Object.keys(body.categories)).toEqual([...formatCategoryNames]);
    expect(body.aliases).toEqual({ jpeg: 'jpg', tif: 'tiff', heif: 'heic' });
    expect(body.categories.image.inputs).toEqual([...imageInputFormats]);
    expect(body.categories.image.outputs).not.toContain('heic');
    expect(body.categories.pdf.outputs).toEqual(expect.arrayContaining(['pdf', 'zip', 'png', 'jpg', 'webp']));
    expect(body.categories.audio.outputs).toEqual(['mp3', 'wav', 'ogg', 'aac', 'flac', 'm4a', 'json']);
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
    for (const category of Object.values(formatCatalogue)) {
      expect(category.inputs).toEqual([
        ...new Set(category.operations.flatMap((operation) => operation.inputs)),
      ]);
      expect(category.outputs).toEqual([
        ...new Set(category.operations.flatMap((operation) => operation.outputs)),
      ]);
    }
  });

  it('names canonical formats', () => {
    expect(canonicalFormat('JPEG')).toBe('jpg');
    expect(canonicalFormat('tif')).toBe('tiff');
    expect(canonicalFormat('webp')).toBe('webp');
    expect(canonicalFormat('constructor')).toBe('constructor');
  });
});

describe('the catalogue and the route table', () => {
  it('lists every conversion and utility route of the table', () => {
    const listed = new Set(operations.map((operation) => operation.path));
    const converting = routes.filter((route) => route.method === 'POST').map((route) => route.path);
    expect(converting.filter((path) => !listed.has(path))).toEqual([]);
  });

  it('lists only routes the table has', () => {
    expect(operations.map((operation) => operation.path).filter((path) => !routeAt(path))).toEqual([]);
  });

  const withOptions = operations.filter(
    (operation): operation is FormatOperation & Required<Pick<FormatOperation, 'options'>> =>
      operation.options !== undefined && routeAt(operation.path)?.body !== undefined,
  );
  it.each(withOptions.map((operation) => [operation.path, operation] as const))(
    '%s accepts exactly the option values the catalogue states',
    (path, operation) => {
      const body = z.toJSONSchema(routeAt(path)!.body!, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, unknown>;
      };
      for (const [field, values] of Object.entries(operation.options)) {
        expect(canonicalSet(acceptedValues(body.properties?.[field])), `${path} ${field}`).toEqual(
          canonicalSet(values),
        );
      }
    },
  );
});
