import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { assertJsonContentType } from '#shared/http/body-text.ts';
import { parseOrThrow } from '#shared/http/validation.ts';
import { imageConvertBody } from '#shared/image/schemas.ts';
import { pdfToImageBody } from '#shared/pdf/schemas.ts';

const sourceUrl = 'https://example.test/photo.jpg';

/** The message of the validation_failed a body gets, or the parsed body. */
function refusal(schema: Parameters<typeof parseOrThrow>[0], body: unknown): string {
  try {
    parseOrThrow(schema, body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('validation_failed');
    return (error as ApiError).message;
  }
  throw new Error('accepted');
}

describe('validation messages say what to do', () => {
  it('lists only the formats that can be written, never heic or heif', () => {
    const message = refusal(imageConvertBody, { sourceUrl, outputFormat: 'bogus' });
    expect(message).toBe(
      'outputFormat: must be one of jpg, png, webp, avif, gif, tiff, bmp, ico, svg, jpeg, tif',
    );
  });

  it('says a missing outputFormat is required, with the values it takes', () => {
    expect(refusal(imageConvertBody, { sourceUrl })).toBe(
      'outputFormat: required: one of jpg, png, webp, avif, gif, tiff, bmp, ico, svg, jpeg, tif',
    );
    // A schema without a message of its own gets the same words from the validation step.
    const pdfToImage = refusal(pdfToImageBody, { sourceUrl, outputFormat: 'gif' });
    expect(pdfToImage).toMatch(/^outputFormat: must be one of png, jpg/);
  });

  it('points pdf on /image-convert to /image-to-pdf', () => {
    expect(refusal(imageConvertBody, { sourceUrl, outputFormat: 'pdf' })).toMatch(/\/image-to-pdf/);
    expect(refusal(imageConvertBody, { sourceUrl, outputFormat: 'PDF' })).toMatch(/\/image-to-pdf/);
  });

  it('reads formats in any letter case, as aliases are read', () => {
    expect(parseOrThrow(imageConvertBody, { sourceUrl, outputFormat: 'JPG' }).outputFormat).toBe('jpg');
    expect(parseOrThrow(imageConvertBody, { sourceUrl, outputFormat: 'Jpeg' }).outputFormat).toBe('jpg');
    expect(parseOrThrow(pdfToImageBody, { sourceUrl, outputFormat: 'PNG' }).outputFormat).toBe('png');
  });

  it('gives one message for a number far out of range, the field’s own bound', () => {
    expect(refusal(imageConvertBody, { sourceUrl, outputFormat: 'webp', quality: 1e300 })).toBe(
      'quality: Too big: expected number to be <=100',
    );
  });

  it('says a missing field of another type is required', () => {
    expect(refusal(imageConvertBody, { outputFormat: 'png' })).toBe('sourceUrl: required');
  });
});

describe('a file sent in the request body', () => {
  it.each(['multipart/form-data; boundary=x', 'image/jpeg', 'application/octet-stream', 'application/pdf'])(
    '%s is told that files come by sourceUrl',
    (type) => {
      expect(() => assertJsonContentType(type)).toThrow(/give the file's address as sourceUrl/);
    },
  );

  it('another type is told to send JSON', () => {
    expect(() => assertJsonContentType('text/plain')).toThrow(
      'Send the request body as Content-Type: application/json.',
    );
  });
});
