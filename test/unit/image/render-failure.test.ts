import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { statusOf } from '#shared/http/errors.ts';
import { mapRenderFailure } from '#shared/image/render-failure.ts';

const failure = (run: () => Promise<never>) =>
  run().then(
    () => 'no failure',
    (error: unknown) =>
      error instanceof ApiError ? `${statusOf(error)} ${error.code}` : `raw: ${(error as Error).message}`,
  );

describe('mapping a failed libvips pipeline over a source', () => {
  const lost = new Error('Unknown error');

  it('answers 400 when libvips lost its message and the source does not decode on its own', async () => {
    expect(await failure(() => mapRenderFailure(lost, () => Promise.reject(new Error(''))))).toBe(
      '400 invalid_source_file',
    );
  });

  it('keeps a 500 when the source decodes: the failure is ours', async () => {
    expect(await failure(() => mapRenderFailure(lost, () => Promise.resolve()))).toBe('raw: Unknown error');
  });

  it('maps a known message from the table without decoding again', async () => {
    let decoded = false;
    const known = new Error('vipspng: libpng read error');
    const answer = await failure(() =>
      mapRenderFailure(known, async () => {
        decoded = true;
      }),
    );
    expect([answer, decoded]).toEqual(['400 invalid_source_file', false]);
  });

  it('keeps a 500 when there is no source to decode again (pixels decoded before the pipeline)', async () => {
    expect(await failure(() => mapRenderFailure(lost))).toBe('raw: Unknown error');
  });
});
