import { writeFile } from 'node:fs/promises';
import { PDFDict, type PDFDocument, PDFHexString, PDFName, type PDFObject, PDFString } from 'pdf-lib';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { type XmpInfo, xmpPacket } from '#shared/pdf/xmp.ts';

/** The fields of document information a request may set, and their Info dictionary keys. */
const textKeys = {
  title: 'Title',
  author: 'Author',
  subject: 'Subject',
  creator: 'Creator',
  producer: 'Producer',
} as const;
const dateKeys = { creationDate: 'CreationDate', modDate: 'ModDate' } as const;

type TextField = keyof typeof textKeys;
type DateField = keyof typeof dateKeys;

/** What to change: a value sets the field, null removes it, an absent field stays as it is. */
export type MetadataChanges = { [F in TextField]?: string | null } & {
  [F in DateField]?: Date | null;
} & { keywords?: string[] | null };

/** The Info dictionary of the document, made when it has none. */
function infoOf(doc: PDFDocument): PDFDict {
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  if (info instanceof PDFDict) return info;
  const made = doc.context.obj({});
  doc.context.trailerInfo.Info = doc.context.register(made);
  return made;
}

function applyChanges(info: PDFDict, changes: MetadataChanges): void {
  const set = (key: string, value: PDFObject | null) =>
    value === null ? info.delete(PDFName.of(key)) : info.set(PDFName.of(key), value);
  for (const [field, key] of Object.entries(textKeys)) {
    const value = changes[field as TextField];
    if (value !== undefined) set(key, value === null ? null : PDFHexString.fromText(value));
  }
  for (const [field, key] of Object.entries(dateKeys)) {
    const value = changes[field as DateField];
    if (value !== undefined) set(key, value === null ? null : PDFString.fromDate(value));
  }
  const { keywords } = changes;
  if (keywords !== undefined)
    set('Keywords', keywords === null ? null : PDFHexString.fromText(keywords.join(', ')));
}

/**
 * Reads the Info dictionary back for the XMP packet. An entry that is no string, or a date that does
 * not parse, is removed, so that what the file states in either place is the same.
 */
function readInfo(info: PDFDict): XmpInfo {
  const read: XmpInfo = {};
  const text = (key: string): string | undefined => {
    const value = info.lookup(PDFName.of(key));
    if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
    info.delete(PDFName.of(key));
    return undefined;
  };
  for (const [field, key] of Object.entries(textKeys)) {
    const value = text(key);
    if (value !== undefined) read[field as TextField] = value;
  }
  const keywords = text('Keywords');
  if (keywords !== undefined) {
    read.keywords = keywords
      .split(/[,;]/)
      .map((word) => word.trim())
      .filter((word) => word !== '');
  }
  for (const [field, key] of Object.entries(dateKeys)) {
    const value = info.lookup(PDFName.of(key));
    const date = value instanceof PDFString || value instanceof PDFHexString ? dateOf(value) : undefined;
    if (date) read[field as DateField] = date;
    else info.delete(PDFName.of(key));
  }
  return read;
}

function dateOf(value: PDFString | PDFHexString): Date | undefined {
  try {
    const date = value.decodeDate();
    return Number.isNaN(date.getTime()) ? undefined : date;
  } catch {
    return undefined;
  }
}

/** Replaces the catalog's XMP metadata stream with one stating what the Info dictionary holds. */
function writeXmp(doc: PDFDocument, info: XmpInfo): void {
  const bytes = new TextEncoder().encode(xmpPacket(info));
  const stream = doc.context.stream(bytes, { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
}

/**
 * Sets and removes document information fields of a PDF, in its Info dictionary and in its XMP
 * metadata (written anew from the Info dictionary, so that the two agree), and writes the document.
 */
export async function setPdfMetadata(
  sourcePath: string,
  outputPath: string,
  changes: MetadataChanges,
): Promise<XmpInfo> {
  const opened = await openPdfFile(sourcePath);
  pagesOf(opened);
  const info = infoOf(opened.doc);
  applyChanges(info, changes);
  const stated = readInfo(info);
  // Keywords given as a list are stated as that list, even where one holds a comma.
  if (changes.keywords && stated.keywords) stated.keywords = changes.keywords;
  writeXmp(opened.doc, stated);
  await writeFile(outputPath, await savePdf(opened.doc));
  return stated;
}
