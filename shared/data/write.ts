import { stringify as writeCsvRows } from 'csv-stringify/sync';
import { stringify as writeTomlTable } from 'smol-toml';
import { stringify as writeYamlDocument } from 'yaml';
import type { DataFormat } from '#shared/data/limits.ts';
import { writeXml } from '#shared/data/write-xml.ts';
import { ApiError } from '#shared/errors.ts';

export interface WriteOptions {
  indent: number;
  delimiter: string;
}

/** Data (already readied by readyToWrite) written as `format`. */
export function writeData(data: unknown, format: DataFormat, options: WriteOptions): string {
  switch (format) {
    case 'json':
      return JSON.stringify(data, null, options.indent);
    case 'yaml':
      return writeYaml(data, options.indent);
    case 'toml':
      return writeToml(data);
    case 'csv':
      return writeCsv(data, options.delimiter);
    case 'xml':
      return writeXml(data, options.indent);
  }
}

/**
 * Block style indented by `indent` spaces, or with `indent` 0 one line of flow style. Long strings
 * are never folded, and a value that several aliases named is written once with an anchor.
 */
function writeYaml(data: unknown, indent: number): string {
  return writeYamlDocument(data, {
    lineWidth: 0,
    ...(indent === 0 ? { collectionStyle: 'flow' as const } : { indent }),
  });
}

function writeToml(data: unknown): string {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ApiError(
      'invalid_input',
      `TOML holds a table at the top, and the data is ${Array.isArray(data) ? 'an array' : 'a single value'}.`,
    );
  }
  return writeTomlTable(data);
}

/**
 * Records (objects) become rows under a header of every field in the order first seen; rows that
 * are arrays are written as they are, with no header. A cell holding an object or array is written
 * as its JSON text, null as an empty cell.
 */
function writeCsv(data: unknown, delimiter: string): string {
  const rows = Array.isArray(data) ? data : [data];
  if (rows.length === 0) return '';
  if (rows.every(Array.isArray))
    return writeCsvRows(
      rows.map((row) => row.map(cellOf)),
      { delimiter },
    );
  if (!rows.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    throw new ApiError(
      'invalid_input',
      'CSV holds rows: the data must be an object, an array of objects (records) or an array of arrays.',
    );
  }
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const records = rows.map((row: Record<string, unknown>) =>
    columns.map((column) => (Object.hasOwn(row, column) ? cellOf(row[column]) : '')),
  );
  return writeCsvRows([columns, ...records], { delimiter });
}

function cellOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
