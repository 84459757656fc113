import type { DataFormat } from '#shared/data/limits.ts';
import { readCsv } from '#shared/data/read-csv.ts';
import { readJson } from '#shared/data/read-json.ts';
import { readToml } from '#shared/data/read-toml.ts';
import { readXml } from '#shared/data/read-xml.ts';
import { readYaml } from '#shared/data/read-yaml.ts';
import { readyToWrite } from '#shared/data/shape.ts';
import { writeData } from '#shared/data/write.ts';

export interface ConvertDataInput {
  text: string;
  from: DataFormat;
  to: DataFormat;
  indent: number;
  delimiter: string;
}

/** Reads `text` as `from` and writes the same data as `to`. */
export function convertData(input: ConvertDataInput): string {
  const data = readData(input.text, input.from, input.delimiter);
  readyToWrite(data, input.to, input.indent);
  return writeData(data, input.to, input);
}

function readData(text: string, format: DataFormat, delimiter: string): unknown {
  switch (format) {
    case 'json':
      return readJson(text);
    case 'yaml':
      return readYaml(text);
    case 'toml':
      return readToml(text);
    case 'csv':
      return readCsv(text, delimiter);
    case 'xml':
      return readXml(text);
  }
}
