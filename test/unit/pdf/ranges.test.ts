import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import {
  eachPage,
  formatRange,
  type PageRange,
  pagesOf,
  parsePageRanges,
  parseRangeSpec,
} from '#shared/pdf/ranges.ts';

const rangeError = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an invalid_range error');
};

/** A document size and a list of ranges that fit it. */
const rangesInDocument = fc.integer({ min: 1, max: 3000 }).chain((pageCount) =>
  fc.tuple(
    fc.constant(pageCount),
    fc.array(
      fc
        .tuple(fc.integer({ min: 1, max: pageCount }), fc.integer({ min: 1, max: pageCount }))
        .map(([a, b]): PageRange => ({ first: Math.min(a, b), last: Math.max(a, b) })),
      { minLength: 1, maxLength: 30 },
    ),
  ),
);

const spaces = fc.constantFrom('', ' ', '  ', '\t');

describe('page range syntax', () => {
  it('reads the contract example', () => {
    expect(parsePageRanges('1-3,5,7-', 9)).toEqual([
      { first: 1, last: 3 },
      { first: 5, last: 5 },
      { first: 7, last: 9 },
    ]);
  });

  it('round-trips any ranges inside the document, whatever the spacing', () => {
    fc.assert(
      fc.property(
        rangesInDocument,
        fc.array(spaces, { minLength: 4, maxLength: 4 }),
        ([pageCount, ranges], pad) => {
          const spec = ranges.map(
            (range) => `${pad[0]}${formatRange(range).replace('-', `${pad[1]}-${pad[2]}`)}${pad[3]}`,
          );
          const parsed = parsePageRanges(spec.join(','), pageCount);
          const unique = [...new Map(ranges.map((range) => [formatRange(range), range])).values()];
          expect(parsed).toEqual(unique);
        },
      ),
    );
  });

  it('gives open ranges the last page and keeps every page inside the document', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.nat(), (pageCount, seed) => {
        const first = (seed % pageCount) + 1;
        const [range] = parsePageRanges(`${first}-`, pageCount);
        expect(range).toEqual({ first, last: pageCount });
        const pages = pagesOf([range!]);
        expect(pages[0]).toBe(first);
        expect(pages.at(-1)).toBe(pageCount);
      }),
    );
  });

  it('refuses reversed ranges and names the right order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10_000 }), fc.integer({ min: 1, max: 9_999 }), (a, b) => {
        fc.pre(b < a);
        const error = rangeError(() => parseRangeSpec(`${a}-${b}`));
        expect(error.code).toBe('invalid_range');
        expect(error.message).toBe(`ranges: "${a}-${b}" is reversed; write "${b}-${a}".`);
      }),
    );
  });

  it('refuses any page past the end of the document', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), (pageCount, over) => {
        const page = pageCount + over;
        for (const spec of [`${page}`, `1-${page}`, `${page}-`]) {
          const error = rangeError(() => parsePageRanges(spec, pageCount, 'pages'));
          expect(error.code).toBe('invalid_range');
          expect(error.message).toContain(`pages: "${spec}" is outside the document, which has ${pageCount}`);
        }
      }),
    );
  });

  it.each([
    ['', 'an empty term is not a page or range'],
    ['1,,3', 'an empty term'],
    ['1-3,', 'an empty term'],
    ['a', '"a" is not a page or range'],
    ['1-3-5', '"1-3-5" is not a page or range'],
    ['-3', '"-3" is not a page or range'],
    ['2.5', '"2.5" is not a page or range'],
    ['1;2', '"1;2" is not a page or range'],
    ['0', 'pages are numbered from 1'],
    ['0-4', 'pages are numbered from 1'],
  ])('refuses the malformed %j', (spec, message) => {
    const error = rangeError(() => parsePageRanges(spec, 10));
    expect(error.code).toBe('invalid_range');
    expect(error.message).toContain(message);
  });

  it('answers any text with ranges or invalid_range, never another failure', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: 1, max: 50 }), (spec, pageCount) => {
        try {
          for (const range of parsePageRanges(spec, pageCount)) {
            expect(range.first).toBeGreaterThanOrEqual(1);
            expect(range.last).toBeLessThanOrEqual(pageCount);
            expect(range.first).toBeLessThanOrEqual(range.last);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).code).toBe('invalid_range');
        }
      }),
    );
  });

  it('lists covered pages once, ascending; the default is one range per page', () => {
    expect(pagesOf(parsePageRanges('5,1-3,2-4', 6))).toEqual([1, 2, 3, 4, 5]);
    expect(eachPage(3)).toEqual([
      { first: 1, last: 1 },
      { first: 2, last: 2 },
      { first: 3, last: 3 },
    ]);
  });
});
