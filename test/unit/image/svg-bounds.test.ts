import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { openImage } from '#shared/image/decode.ts';
import { maxDrawnElements, maxFilterWork, svgImageLimits } from '#shared/image/limits.ts';
import { assertSelfContainedSvg } from '#shared/image/svg-guard.ts';
import { blurChain, nestedSvg, svgWithRaster, useAmplification } from '../../corpus/svg-bounds.ts';
import { ImageFixtures } from './fixtures.ts';
import { svgRefusal } from './svg-refusal.ts';

describe('SVG render bounds: inline rasters', () => {
  it('refuses a 64 × 64 SVG holding a 12 000 × 12 000 data: PNG, naming the limit', () => {
    const answer = svgRefusal(svgWithRaster(12_000));
    expect(answer).toMatch(/^invalid_source_file: /);
    expect(answer).toContain('12000 × 12000');
    expect(answer).toContain('at most 100 megapixels');
  });

  it('accepts a data: PNG within the limit (9000 × 9000)', () => {
    expect(svgRefusal(svgWithRaster(9000))).toBe('accepted');
  });

  it('finds the raster three SVGs deep', () => {
    expect(svgRefusal(nestedSvg(3, 12_000))).toMatch(/at most 100 megapixels/);
    expect(svgRefusal(nestedSvg(3, 200))).toBe('accepted');
  });

  it('counts every raster of the document together', () => {
    const two = svgWithRaster(8000).replace(
      '<image',
      `${/<image[^>]*\/>/.exec(svgWithRaster(8000))![0]}<image`,
    );
    expect(svgRefusal(two)).toMatch(/128 megapixels/);
  });

  it(`refuses SVG images nested more than ${svgImageLimits.maxNesting} levels deep`, () => {
    expect(svgRefusal(nestedSvg(svgImageLimits.maxNesting, 4))).toBe('accepted');
    expect(svgRefusal(nestedSvg(svgImageLimits.maxNesting + 1, 4))).toMatch(
      /nests SVG images more than 8 levels/,
    );
  });
});

describe('SVG render bounds: <use> references', () => {
  it('refuses 10 levels of 10 references (ten billion elements drawn)', () => {
    expect(svgRefusal(useAmplification(10, 10))).toBe(
      `invalid_source_file: The SVG draws more than ${maxDrawnElements} elements once its <use> references are expanded, the most accepted.`,
    );
  });

  it('accepts references that draw within the limit, and a reference cycle is bounded too', () => {
    expect(svgRefusal(useAmplification(4, 10))).toBe('accepted');
    const cycle =
      '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><g id="a"><rect width="1" height="1"/><use href="#a"/></g></svg>';
    expect(svgRefusal(cycle)).toMatch(/draws more than/);
  });
});

describe('SVG render bounds: filters', () => {
  const fixtures = new ImageFixtures();

  const open = async (text: string) => {
    await fixtures.open();
    try {
      const path = await fixtures.save('filters.svg', text);
      return await openImage(path, 'svg').then(
        () => 'accepted',
        (error: unknown) => (error instanceof ApiError ? `${error.code}: ${error.message}` : 'crashed'),
      );
    } finally {
      await fixtures.close();
    }
  };

  it('counts the primitives an element runs, expanded through references and style sheets', () => {
    expect(assertSelfContainedSvg(blurChain(3, 100)).filterPrimitives).toBe(3);
    const used = blurChain(3, 100)
      .replace('</svg>', '<use href="#r"/><use href="#r"/></svg>')
      .replace('<rect', '<rect id="r"');
    expect(assertSelfContainedSvg(used).filterPrimitives).toBe(9);
    const styled = blurChain(2, 100)
      .replace(' filter="url(#f)"', '')
      .replace('<filter', '<style>rect { filter: url(#f) }</style><filter');
    // Two elements drawn after the filter's own: the style sheet's filter is counted on each element.
    expect(assertSelfContainedSvg(styled).filterPrimitives).toBeGreaterThanOrEqual(2);
  });

  it(`refuses a blur chain over ${maxFilterWork} megapixels of filter work before rendering, naming the limit`, async () => {
    // 60 blurs over 2000 × 2000 is 240 megapixels of work: minutes of CPU if rendered.
    const answer = await open(blurChain(60, 2000));
    expect(answer).toMatch(
      /^invalid_source_file: The SVG runs 60 filter primitives over a 2000 × 2000 canvas/,
    );
    expect(answer).toContain(`at most ${maxFilterWork} are accepted`);
  });

  it('accepts a drop-shadow-sized filter', async () => {
    expect(await open(blurChain(3, 300))).toBe('accepted');
  });
});
