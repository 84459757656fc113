import { ApiError } from '#shared/errors.ts';
import { rangeSyntax } from '#shared/pdf/limits.ts';

/** Pages `first` to `last`, 1-based and inclusive. */
export interface PageRange {
  first: number;
  last: number;
}

/** One comma-separated term as written: `5`, `1-3` or `7-` (open: to the last page). */
export interface RangeTerm {
  first: number;
  /** Undefined for an open range such as `7-`. */
  last: number | undefined;
  text: string;
}

const termPattern = /^(\d+)(?:\s*(-)\s*(\d*))?$/;

const invalid = (field: string, message: string) => new ApiError('invalid_range', `${field}: ${message}`);

/**
 * Reads range syntax such as `1-3,5,7-` (whitespace around the parts is allowed). Only the syntax
 * is checked here, so that a malformed value is refused before any download.
 */
export function parseRangeSpec(spec: string, field = 'ranges'): RangeTerm[] {
  const parts = spec.split(',');
  return parts.map((part) => {
    const text = part.trim();
    const match = termPattern.exec(text);
    if (!match) {
      const shown = text === '' ? 'an empty term' : `"${text.slice(0, 40)}"`;
      throw invalid(field, `${shown} is not a page or range; write pages and ranges like ${rangeSyntax}.`);
    }
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : match[3] ? Number(match[3]) : undefined;
    if (first === 0 || last === 0) throw invalid(field, `"${text}": pages are numbered from 1.`);
    if (last !== undefined && last < first) {
      throw invalid(field, `"${text}" is reversed; write "${last}-${first}".`);
    }
    return { first, last, text };
  });
}

/** Checks one term against the document and fixes an open end. */
function resolveTerm(term: RangeTerm, pageCount: number, field: string): PageRange {
  const last = term.last ?? pageCount;
  if (term.first > pageCount || last > pageCount) {
    const pages = pageCount === 1 ? '1 page' : `${pageCount} pages`;
    throw invalid(field, `"${term.text}" is outside the document, which has ${pages}.`);
  }
  return { first: term.first, last };
}

/** Checks every term against the document and fixes open ends; identical ranges are kept once. */
export function resolveRanges(terms: readonly RangeTerm[], pageCount: number, field = 'ranges'): PageRange[] {
  const seen = new Set<string>();
  const ranges: PageRange[] = [];
  for (const term of terms) {
    const { last } = resolveTerm(term, pageCount, field);
    const key = `${term.first}-${last}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ranges.push({ first: term.first, last });
  }
  return ranges;
}

export function parsePageRanges(spec: string, pageCount: number, field = 'ranges'): PageRange[] {
  return resolveRanges(parseRangeSpec(spec, field), pageCount, field);
}

/** Every page of the document, each as its own range: the default of /pdf-split. */
export function eachPage(pageCount: number): PageRange[] {
  return Array.from({ length: pageCount }, (_, index) => ({ first: index + 1, last: index + 1 }));
}

/** `5` or `1-3`: how a range is named in output file names. */
export const formatRange = (range: PageRange): string =>
  range.first === range.last ? String(range.first) : `${range.first}-${range.last}`;

export const pageCountOf = (range: PageRange): number => range.last - range.first + 1;

/** The pages the ranges cover, each once, in ascending order. */
export function pagesOf(ranges: readonly PageRange[]): number[] {
  const pages = new Set<number>();
  for (const range of ranges) for (let page = range.first; page <= range.last; page += 1) pages.add(page);
  return [...pages].sort((a, b) => a - b);
}

/**
 * The pages the terms name, in the order written and as often as written (`3,1-2,2` is 3, 1, 2, 2),
 * each checked against the document. More than `maxPages` in all answers invalid_range.
 */
export function pageSequence(
  terms: readonly RangeTerm[],
  pageCount: number,
  maxPages: number,
  field = 'pages',
): number[] {
  const ranges = terms.map((term) => resolveTerm(term, pageCount, field));
  const total = ranges.reduce((sum, range) => sum + pageCountOf(range), 0);
  if (total > maxPages) {
    throw invalid(
      field,
      `the terms name ${total} pages in all; at most ${maxPages} are written per request.`,
    );
  }
  return ranges.flatMap((range) =>
    Array.from({ length: pageCountOf(range) }, (_, offset) => range.first + offset),
  );
}
