import { strToU8, unzipSync, type Zippable, zipSync } from 'fflate';
import { makeDocx } from './office-documents.ts';

/**
 * ZIP-based documents that would inflate to far more than they weigh. Each is a real docx around
 * its bomb, so that only the bound can refuse it, never the format check.
 */

const CENTRAL_HEADER = 0x02014b50;

/** The offsets of every central-directory header of a ZIP made by fflate (no comment, no ZIP64). */
function centralHeaders(zip: Buffer): number[] {
  const offsets: number[] = [];
  for (let at = 0; at <= zip.length - 46; at += 1) {
    if (zip.readUInt32LE(at) === CENTRAL_HEADER) offsets.push(at);
  }
  return offsets;
}

/** A docx with its parts plus `extra`, each compressed at deflate's best. */
function docxWith(extra: Record<string, Uint8Array>): Buffer {
  const files: Zippable = { ...unzipSync(new Uint8Array(makeDocx('Bomb carrier'))) };
  for (const [name, data] of Object.entries(extra)) files[name] = [data, { level: 9 }];
  return Buffer.from(zipSync(files));
}

/** A docx with one 4 MiB part of zeros: it weighs a few KiB, a ratio of about 1000. */
export function ratioBomb(): Buffer {
  return docxWith({ 'word/media/zeros.bin': new Uint8Array(4 * 1024 * 1024) });
}

/** A docx whose central directory declares a part of `declaredBytes` (the part itself is small). */
export function declaredBomb(declaredBytes: number): Buffer {
  const zip = docxWith({ 'word/media/big.bin': strToU8('not really big') });
  const header = centralHeaders(zip).at(-1);
  if (header === undefined) throw new Error('no central directory');
  // Uncompressed size at +24; the compressed size at +20 grows too, so the ratio stays plausible.
  zip.writeUInt32LE(declaredBytes, header + 24);
  zip.writeUInt32LE(Math.ceil(declaredBytes / 4), header + 20);
  return zip;
}

/** A docx whose 4 MiB part of zeros is declared, in its central directory, as 1 KiB. */
export function lyingBomb(): Buffer {
  const zip = ratioBomb();
  for (const header of centralHeaders(zip)) {
    const nameLength = zip.readUInt16LE(header + 28);
    const name = zip.subarray(header + 46, header + 46 + nameLength).toString('utf8');
    if (name === 'word/media/zeros.bin') zip.writeUInt32LE(1024, header + 24);
  }
  return zip;
}

/** A docx of `count` empty parts beside its own. */
export function manyEntries(count: number): Buffer {
  const extra: Record<string, Uint8Array> = {};
  for (let index = 0; index < count; index += 1) extra[`word/media/e${index}.bin`] = new Uint8Array(0);
  return docxWith(extra);
}

/** A docx that embeds `inner` as a workbook, as Word stores an embedded Excel object. */
export function embedding(inner: Buffer, name = 'word/embeddings/Microsoft_Excel_Worksheet.xlsx'): Buffer {
  return docxWith({ [name]: new Uint8Array(inner) });
}
