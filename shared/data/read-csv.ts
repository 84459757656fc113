import { CsvError, parse } from 'csv-parse/sync';
import { notValid } from '#shared/data/position.ts';
import { ApiError } from '#shared/errors.ts';

/**
 * CSV (RFC 4180) as records: the first row names the fields, every further row is one object of
 * strings (CSV has no types, so none is guessed). A row with more or fewer fields than the header is
 * refused rather than shifted or cut. For CSV the column of an error counts fields, not characters.
 */
export function readCsv(text: string, delimiter: string): Record<string, string>[] {
  let rows: string[][];
  try {
    rows = parse(text, { delimiter, bom: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const { lines, index } = error as CsvError & { lines?: number; index?: number };
    const where = lines === undefined ? undefined : { line: lines, column: (index ?? 0) + 1 };
    throw notValid('CSV', where, (error.message.split(/:| on line| at line/)[0] ?? '').toLowerCase(), error);
  }
  const [header, ...records] = rows;
  if (!header) return [];
  const seen = new Set<string>();
  for (const name of header) {
    if (seen.has(name)) {
      throw new ApiError(
        'invalid_input',
        `text is not valid CSV for records: line 1 names the field "${name}" twice.`,
      );
    }
    seen.add(name);
  }
  // fromEntries defines own properties, so a field named "__proto__" is data, never a prototype.
  return records.map((record) => Object.fromEntries(header.map((name, index) => [name, record[index]!])));
}
