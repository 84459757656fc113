import { PDFArray, PDFDict, type PDFDocument, PDFName, type PDFObject, type PDFPage, PDFRef } from 'pdf-lib';

/**
 * Links between pages survive copying into another document. pdf-lib's copier follows a link's
 * destination and copies the page it names a second time, unseen (so a table of contents copied
 * alone would drag every page it links to into the file). So before copying, each destination's
 * page is replaced by a name that marks its page number; after copying, the marks are turned into
 * the copied pages, and links to pages that were not copied are removed.
 */
const markPrefix = 'fca-link-page-';

/** The destination array of a link annotation (`/Dest […]` or a GoTo action's `/D […]`). */
function destinationOf(annotation: PDFObject | undefined): PDFArray | undefined {
  if (!(annotation instanceof PDFDict)) return undefined;
  const action = annotation.lookup(PDFName.of('A'));
  const destination =
    annotation.lookup(PDFName.of('Dest')) ??
    (action instanceof PDFDict && action.lookup(PDFName.of('S')) === PDFName.of('GoTo')
      ? action.lookup(PDFName.of('D'))
      : undefined);
  return destination instanceof PDFArray && destination.size() > 0 ? destination : undefined;
}

function annotationsOf(page: PDFPage): PDFArray | undefined {
  const annotations = page.node.lookup(PDFName.Annots);
  return annotations instanceof PDFArray ? annotations : undefined;
}

/** Replaces the target page of every link in `doc` by a mark of its 1-based number. Idempotent. */
export function markPageLinks(doc: PDFDocument): void {
  const numbers = new Map<PDFObject, number>(doc.getPages().map((page, index) => [page.ref, index + 1]));
  for (const page of doc.getPages()) {
    for (const entry of annotationsOf(page)?.asArray() ?? []) {
      const destination = destinationOf(doc.context.lookup(entry));
      const target = destination?.get(0);
      const number = target instanceof PDFRef ? numbers.get(target) : undefined;
      if (destination && number !== undefined) destination.set(0, PDFName.of(`${markPrefix}${number}`));
    }
  }
}

/**
 * Points the marked links of `pages` (copies of a marked document) at the copied pages: `copies`
 * maps a source page number to its copy. Links to pages without a copy are removed.
 */
export function resolvePageLinks(
  doc: PDFDocument,
  pages: readonly PDFPage[],
  copies: ReadonlyMap<number, PDFRef>,
): void {
  for (const page of pages) {
    const annotations = annotationsOf(page);
    if (!annotations) continue;
    for (let index = annotations.size() - 1; index >= 0; index -= 1) {
      const destination = destinationOf(doc.context.lookup(annotations.get(index)));
      const target = destination?.get(0);
      if (!destination || !(target instanceof PDFName) || !target.decodeText().startsWith(markPrefix))
        continue;
      const copy = copies.get(Number(target.decodeText().slice(markPrefix.length)));
      if (copy) destination.set(0, copy);
      else annotations.remove(index);
    }
  }
}
