import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { appearanceMatrix } from '#shared/pdf/flatten.ts';
import { cjkFaceFor, DrawingFonts } from '#shared/pdf/fonts.ts';
import { numberOrigin, numberText } from '#shared/pdf/page-numbers.ts';
import { frameOf, type Matrix, multiply } from '#shared/pdf/stamp.ts';
import { fittedFontSize, placements, turnedBox } from '#shared/pdf/watermark.ts';

/** Where a point lands under a matrix. */
const apply = (m: Matrix, x: number, y: number) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
const rounded = (values: number[]) => values.map((value) => Math.round(value * 1000) / 1000);

describe('frameOf', () => {
  it('maps the page as shown to the page’s own space, for each rotation', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([200, 100]);
    const corners = async (rotate: number) => {
      page.node.set(PDFName.of('Rotate'), PDFNumber.of(rotate));
      const frame = frameOf(page);
      // The shown bottom-left and top-right corners, in the page's own coordinates.
      return [
        frame.width,
        frame.height,
        ...rounded(apply(frame.toPage, 0, 0)),
        ...rounded(apply(frame.toPage, frame.width, frame.height)),
      ];
    };
    expect(await corners(0)).toEqual([200, 100, 0, 0, 200, 100]);
    // Turned a quarter clockwise: the page's top-left corner is shown at the bottom left.
    expect(await corners(90)).toEqual([100, 200, 200, 0, 0, 100]);
    expect(await corners(180)).toEqual([200, 100, 200, 100, 0, 0]);
    expect(await corners(270)).toEqual([100, 200, 0, 100, 200, 0]);
  });

  it('composes matrices with the first applied first', () => {
    const moveThenDouble = multiply([1, 0, 0, 1, 5, 0], [2, 0, 0, 2, 0, 0]);
    expect(apply(moveThenDouble, 1, 1)).toEqual([12, 2]);
  });
});

describe('watermark placement', () => {
  const page = { width: 400, height: 200 };

  it('fits a turned text to its share of the page', () => {
    // A text 5 em wide, unturned: 80 % of the width at the centre is 320 points, so 64 points a size.
    expect(fittedFontSize(5, 0, 'center', page)).toBeCloseTo(64);
    // At an edge, 40 %.
    expect(fittedFontSize(5, 0, 'north', page)).toBeCloseTo(32);
    expect(turnedBox(10, 2, 90).width).toBeCloseTo(2);
  });

  it('puts the mark at the centre, at compass points inside a margin, or tiled within bounds', () => {
    const box = { width: 40, height: 20 };
    expect(placements('center', page, box)).toEqual([[200, 100]]);
    // The margin is 4 % of the shorter side: 8 points.
    expect(placements('southeast', page, box)).toEqual([[372, 18]]);
    expect(placements('northwest', page, box)).toEqual([[28, 182]]);
    const tiles = placements('tile', page, box);
    expect(tiles.length).toBeGreaterThan(10);
    expect(
      placements('tile', { width: 14_400, height: 14_400 }, { width: 1, height: 1 }).length,
    ).toBeLessThanOrEqual(400);
  });
});

describe('page numbers', () => {
  it('fills the placeholders and places the text by position and margin', () => {
    expect(numberText('Page {n} of {total}', 3, 12)).toBe('Page 3 of 12');
    expect(numberOrigin('bottom-right', { width: 300, height: 400 }, 50, 10, 24)).toEqual([226, 26.5]);
    expect(numberOrigin('top-left', { width: 300, height: 400 }, 50, 10, 24)).toEqual([24, 368]);
    expect(numberOrigin('bottom-center', { width: 300, height: 400 }, 50, 10, 24)[0]).toBe(125);
  });
});

describe('appearanceMatrix', () => {
  it('fits the appearance’s box, moved by its own matrix, to the annotation’s rectangle', () => {
    const at = appearanceMatrix([100, 200, 140, 220], [0, 0, 20, 10])!;
    expect(apply(at, 0, 0)).toEqual([100, 200]);
    expect(apply(at, 20, 10)).toEqual([140, 220]);
    expect(appearanceMatrix([0, 0, 10, 10], [0, 0, 0, 5])).toBeUndefined();
  });
});

describe('DrawingFonts', () => {
  it('picks the CJK face by the text and cuts text into runs by the font that has it', async () => {
    expect(cjkFaceFor('東京')).toBe('cjkSc');
    expect(cjkFaceFor('東京 かな')).toBe('cjkJp');
    expect(cjkFaceFor('서울')).toBe('cjkKr');
    const doc = await PDFDocument.create();
    const fonts = new DrawingFonts(doc);
    const runs = await fonts.runs('Ωμέγα 東京 Москва', 'text');
    expect(runs.map((run) => run.text)).toEqual(['Ωμέγα ', '東京 ', 'Москва']);
    expect(runs[0]!.font).toBe(runs[2]!.font);
    await expect(fonts.runs('ok \u{1F600}', 'format')).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/^format: the character U\+1F600/),
    });
  });
});
