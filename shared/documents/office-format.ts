import { open, readFile, stat } from 'node:fs/promises';
import CFB from 'cfb';
import { SaxesParser } from 'saxes';
import { maxCompoundFileBytes, type OfficeFormat, officeFormats } from '#shared/documents/office-limits.ts';
import { DocumentArchiveError, readDocumentArchive } from '#shared/documents/office-zip.ts';
import { ApiError } from '#shared/errors.ts';

const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');
const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const RTF_MAGIC = Buffer.from('{\\rtf', 'latin1');

/** ODF's `mimetype` part, stored first and uncompressed, names the document kind. */
const odfTypes: Readonly<Record<string, OfficeFormat>> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
};

/** OOXML's `[Content_Types].xml` gives the main part's content type; the macro-free kinds only. */
const ooxmlTypes: Readonly<Record<string, OfficeFormat>> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml': 'pptx',
};

/** The stream a legacy Office file keeps its content in, by application. */
const compoundStreams: ReadonlyArray<[string, OfficeFormat]> = [
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['PowerPoint Document', 'ppt'],
];

const CONTENT_TYPES = '[Content_Types].xml';
const ODF_MIMETYPE = 'mimetype';

const unsupported = (what: string) =>
  new ApiError(
    'unsupported_input_format',
    `The source is ${what}; this operation accepts ${officeFormats.join(', ')}.`,
  );

const unreadable = (why: string, cause?: unknown) =>
  new ApiError('invalid_source_file', `The document cannot be read: ${why}`, { cause });

async function head(path: string, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The content types of the `<Override>` parts in `[Content_Types].xml`, read with an XML parser. */
function overrideTypes(xml: string): string[] {
  const types: string[] = [];
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    const type = tag.attributes.ContentType;
    if (tag.name === 'Override' && typeof type === 'string') types.push(type.trim().toLowerCase());
  });
  parser.write(xml).close();
  return types;
}

function zipFormat(names: Set<string>, parts: Map<string, string>): OfficeFormat {
  const mimetype = parts.get(ODF_MIMETYPE);
  if (mimetype !== undefined) {
    const format = odfTypes[mimetype.trim()];
    if (!format) throw unsupported('an OpenDocument file of a kind this service does not convert');
    if (!names.has('content.xml')) throw unreadable('the OpenDocument file has no content.xml.');
    return format;
  }
  const contentTypes = parts.get(CONTENT_TYPES);
  if (contentTypes === undefined) throw unsupported('a ZIP archive that is no office document');
  let types: string[];
  try {
    types = overrideTypes(contentTypes);
  } catch (error) {
    throw unreadable('its [Content_Types].xml is not well-formed XML.', error);
  }
  const found = new Set(types.map((type) => ooxmlTypes[type]).filter((format) => format !== undefined));
  const [format] = found;
  if (found.size !== 1 || !format) {
    throw unsupported(
      'an Open XML package that is no Word, Excel or PowerPoint document (or a macro-enabled one)',
    );
  }
  return format;
}

async function archiveFormat(path: string): Promise<OfficeFormat> {
  try {
    const { names, parts } = await readDocumentArchive(path, [ODF_MIMETYPE, CONTENT_TYPES]);
    return zipFormat(names, parts);
  } catch (error) {
    if (!(error instanceof DocumentArchiveError)) throw error;
    throw new ApiError('invalid_source_file', `The document cannot be read: ${error.message}`, {
      cause: error,
    });
  }
}

async function compoundFormat(path: string): Promise<OfficeFormat> {
  const { size } = await stat(path);
  if (size > maxCompoundFileBytes) {
    throw unreadable(`legacy Office files are read up to ${maxCompoundFileBytes / 1024 / 1024} MiB.`);
  }
  let names: string[];
  try {
    const container = CFB.read(await readFile(path), { type: 'buffer' });
    names = container.FileIndex.filter((entry) => entry.type === 2).map((entry) => entry.name);
  } catch (error) {
    throw unreadable('its compound-file structure is damaged or cut short.', error);
  }
  if (names.includes('EncryptedPackage')) throw unreadable('it is encrypted (password-protected).');
  const match = compoundStreams.find(([stream]) => names.includes(stream));
  if (!match) throw unsupported('a compound file that is no Word, Excel or PowerPoint document');
  return match[1];
}

/**
 * Names an office document's format from its bytes, never from its name or the server's word:
 * ZIP-based ones by their `mimetype` (ODF) or `[Content_Types].xml` (OOXML), after the archive has
 * passed the ZIP-bomb bounds (office-zip.ts); legacy ones by the streams of their OLE2 compound
 * file; RTF by `{\rtf`. Throws 400 `unsupported_input_format` or `invalid_source_file`.
 */
export async function identifyOfficeDocument(path: string): Promise<OfficeFormat> {
  const bytes = await head(path, 8);
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) return archiveFormat(path);
  if (bytes.equals(OLE2_MAGIC)) return compoundFormat(path);
  if (bytes.subarray(0, 5).equals(RTF_MAGIC)) return 'rtf';
  throw unsupported('in no office format');
}
