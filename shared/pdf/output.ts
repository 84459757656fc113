import { PDFDict, PDFDocument, PDFHexString, PDFName, type PDFPage, PDFString } from 'pdf-lib';
import { markPageLinks, resolvePageLinks } from '#shared/pdf/links.ts';
import { dropUnreachable } from '#shared/pdf/prune.ts';
import type { PageRange } from '#shared/pdf/ranges.ts';
import { removeActiveContent } from '#shared/pdf/sanitize.ts';

const producer = 'file-conversion-api';
const copiedInfo: Array<[string, (doc: PDFDocument, text: string) => void]> = [
  ['Title', (doc, text) => doc.setTitle(text)],
  ['Author', (doc, text) => doc.setAuthor(text)],
  ['Subject', (doc, text) => doc.setSubject(text)],
  ['Keywords', (doc, text) => doc.setKeywords([text])],
  ['Creator', (doc, text) => doc.setCreator(text)],
];

/** A new, empty document whose Info names this service as producer (not pdf-lib's defaults). */
export async function newPdf(): Promise<PDFDocument> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer(producer);
  doc.setCreationDate(new Date());
  doc.setModificationDate(new Date());
  return doc;
}

/** Carries title, author, subject, keywords and creator over from a source document. */
export function copyInfo(from: PDFDocument, to: PDFDocument): void {
  const info = from.context.lookup(from.context.trailerInfo.Info);
  if (!(info instanceof PDFDict)) return;
  for (const [key, set] of copiedInfo) {
    const value = info.lookup(PDFName.of(key));
    if (value instanceof PDFString || value instanceof PDFHexString) set(to, value.decodeText());
  }
}

/**
 * Serialises with object streams: the smallest form pdf-lib writes, but for a few small objects
 * (then `objectStreams: false` may save bytes). Form field appearances are left as they are
 * (pdf-lib would otherwise rebuild them, and add an empty form to every document). Every PDF the
 * service writes passes here, so this is where active content is removed.
 */
export function savePdf(doc: PDFDocument, options: { objectStreams?: boolean } = {}): Promise<Uint8Array> {
  removeActiveContent(doc);
  return doc.save({
    useObjectStreams: options.objectStreams ?? true,
    addDefaultPage: false,
    updateFieldAppearances: false,
  });
}

/**
 * Appends copies of pages `indices` (0-based) of `source` to `out`, keeping the links between the
 * copied pages. Returns the copies.
 */
export async function copyPagesInto(
  out: PDFDocument,
  source: PDFDocument,
  indices: readonly number[],
): Promise<PDFPage[]> {
  markPageLinks(source);
  const copies = await out.copyPages(source, [...indices]);
  for (const page of copies) out.addPage(page);
  resolvePageLinks(out, copies, new Map(copies.map((page, at) => [indices[at]! + 1, page.ref])));
  return copies;
}

/** A new document holding a copy of pages `range` of `source`, with its Info and its internal links. */
export async function extractPages(source: PDFDocument, range: PageRange): Promise<PDFDocument> {
  const out = await newPdf();
  copyInfo(source, out);
  const indices = Array.from(
    { length: range.last - range.first + 1 },
    (_, offset) => range.first - 1 + offset,
  );
  await copyPagesInto(out, source, indices);
  dropUnreachable(out.context);
  return out;
}
