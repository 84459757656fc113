import { open, readFile, stat } from 'node:fs/promises';
import { compoundStreams } from '#shared/documents/office-compound.ts';
import { maxCompoundFileBytes, type OfficeFormat, officeFormats } from '#shared/documents/office-limits.ts';
import {
  type ContentTypes,
  mainPartName,
  readContentTypes,
  typeOfPart,
} from '#shared/documents/office-ooxml.ts';
import { elements, xmlText } from '#shared/documents/office-xml.ts';
import { DocumentArchiveError, readDocumentArchive } from '#shared/documents/office-zip.ts';
import { ApiError } from '#shared/errors.ts';

/** An office document as its bytes name it. */
export interface OfficeDocument {
  format: OfficeFormat;
  /** A .doc of Word 6.0 or 95 (no table stream), which LibreOffice reads with its Word 95 filter. */
  word95?: true;
}

const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');
const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const RTF_MAGIC = Buffer.from('{\\rtf', 'latin1');

/**
 * ODF's `mimetype` part, stored first and uncompressed, names the document kind; without it, the
 * manifest's entry for the package root does.
 */
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
const compoundStreamFormats: ReadonlyArray<[string, OfficeFormat]> = [
  ['WordDocument', 'doc'],
  ['Workbook', 'xls'],
  ['Book', 'xls'],
  ['PowerPoint Document', 'ppt'],
];

/** Word 97 and later keep the document's tables in one of these; Word 6.0 and 95 have neither. */
const wordTableStreams = ['0Table', '1Table'];
const ENCRYPTED_PACKAGE = 'EncryptedPackage';

const CONTENT_TYPES = '[Content_Types].xml';
const PACKAGE_RELATIONSHIPS = '_rels/.rels';
const ODF_MIMETYPE = 'mimetype';
const ODF_MANIFEST = 'META-INF/manifest.xml';

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

/**
 * The format of an Open XML package, from its main part's content type (office-ooxml.ts). When the
 * package relationships name no main part, or no type for it, the main-document types declared
 * anywhere in `[Content_Types].xml` decide, if they name one format: LibreOffice is the judge of
 * whether such a package can be read.
 */
function ooxmlFormat(contentTypesXml: Buffer, rels: Buffer | undefined): OfficeFormat {
  let types: ContentTypes;
  try {
    types = readContentTypes(xmlText(contentTypesXml));
  } catch (error) {
    throw unreadable('its [Content_Types].xml is not well-formed XML.', error);
  }
  const part = rels === undefined ? undefined : mainPartName(xmlText(rels));
  const mainType = part === undefined ? undefined : typeOfPart(types, part);
  const declared =
    mainType !== undefined ? [mainType] : [...types.overrides.values(), ...types.defaults.values()];
  const found = new Set(declared.map((type) => ooxmlTypes[type]).filter((format) => format !== undefined));
  const [format] = found;
  if (found.size !== 1 || !format) {
    throw unsupported(
      'an Open XML package that is no Word, Excel or PowerPoint document (or a macro-enabled one)',
    );
  }
  return format;
}

function odfFormat(mediaType: string, names: Set<string>): OfficeFormat {
  const format = odfTypes[mediaType.trim()];
  if (!format) throw unsupported('an OpenDocument file of a kind this service does not convert');
  if (!names.has('content.xml')) throw unreadable('the OpenDocument file has no content.xml.');
  return format;
}

/**
 * The media type the manifest gives an ODF package's root (`full-path="/"`), which LibreOffice
 * reads when the package has no `mimetype` part; undefined when it gives none or is not XML.
 */
function manifestMediaType(manifest: Buffer): string | undefined {
  let mediaType: string | undefined;
  try {
    elements(xmlText(manifest), (name, attributes) => {
      if (name === 'file-entry' && attributes['full-path'] === '/') mediaType ??= attributes['media-type'];
    });
  } catch {
    // A manifest that is not XML names nothing.
  }
  return mediaType;
}

function zipFormat(names: Set<string>, parts: Map<string, Buffer>): OfficeFormat {
  const mimetype = parts.get(ODF_MIMETYPE);
  if (mimetype !== undefined) return odfFormat(mimetype.toString('utf8'), names);
  const contentTypes = parts.get(CONTENT_TYPES);
  if (contentTypes !== undefined) return ooxmlFormat(contentTypes, parts.get(PACKAGE_RELATIONSHIPS));
  const manifest = parts.get(ODF_MANIFEST);
  const manifestType = manifest === undefined ? undefined : manifestMediaType(manifest);
  if (manifestType !== undefined) return odfFormat(manifestType, names);
  throw unsupported('a ZIP archive that is no office document');
}

async function archiveFormat(path: string): Promise<OfficeFormat> {
  try {
    const { names, parts } = await readDocumentArchive(path, [
      ODF_MIMETYPE,
      ODF_MANIFEST,
      CONTENT_TYPES,
      PACKAGE_RELATIONSHIPS,
    ]);
    return zipFormat(names, parts);
  } catch (error) {
    if (!(error instanceof DocumentArchiveError)) throw error;
    throw new ApiError('invalid_source_file', `The document cannot be read: ${error.message}`, {
      cause: error,
    });
  }
}

async function compoundFormat(path: string): Promise<OfficeDocument> {
  const { size } = await stat(path);
  if (size > maxCompoundFileBytes) {
    throw unreadable(`legacy Office files are read up to ${maxCompoundFileBytes / 1024 / 1024} MiB.`);
  }
  const wanted = [...compoundStreamFormats.map(([stream]) => stream), ...wordTableStreams, ENCRYPTED_PACKAGE];
  const { names, damaged, cause } = compoundStreams(await readFile(path), wanted);
  const has = (stream: string) => names.has(stream.toLowerCase());
  if (has(ENCRYPTED_PACKAGE)) throw unreadable('it is encrypted (password-protected).');
  const match = compoundStreamFormats.find(([stream]) => has(stream));
  if (!match && damaged) throw unreadable('its compound-file structure is damaged or cut short.', cause);
  if (!match) throw unsupported('a compound file that is no Word, Excel or PowerPoint document');
  const [, format] = match;
  // Word 6.0 and 95 keep their tables in the WordDocument stream; Word 97 and later in a table stream.
  return format === 'doc' && !wordTableStreams.some(has) ? { format, word95: true } : { format };
}

/**
 * Names an office document's format from its bytes, never from its name or the server's word:
 * ZIP-based ones by their `mimetype` (ODF) or `[Content_Types].xml` (OOXML), after the archive has
 * passed the ZIP-bomb bounds (office-zip.ts); legacy ones by the streams of their OLE2 compound
 * file (office-compound.ts); RTF by `{\rtf`. Throws 400 `unsupported_input_format` or
 * `invalid_source_file`.
 */
export async function identifyOfficeDocument(path: string): Promise<OfficeDocument> {
  const bytes = await head(path, 8);
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) return { format: await archiveFormat(path) };
  if (bytes.equals(OLE2_MAGIC)) return compoundFormat(path);
  if (bytes.subarray(0, 5).equals(RTF_MAGIC)) return { format: 'rtf' };
  throw unsupported('in no office format');
}
