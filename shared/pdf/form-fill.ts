import { writeFile } from 'node:fs/promises';
import { flattenDocument } from '#shared/pdf/flatten.ts';
import { DrawingFonts } from '#shared/pdf/fonts.ts';
import { fillForm } from '#shared/pdf/forms.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { PageStamper } from '#shared/pdf/stamp.ts';

/** Fills the form fields named in `fields`, flattens the form when asked, and writes the document. */
export async function fillPdfForm(
  sourcePath: string,
  outputPath: string,
  options: { fields: Readonly<Record<string, string | boolean>>; flatten: boolean },
): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  pagesOf(opened);
  const fonts = new DrawingFonts(opened.doc);
  await fillForm(opened.doc, options.fields, fonts);
  if (options.flatten) await flattenDocument(opened.doc, fonts, new PageStamper(opened.doc));
  await fonts.finish();
  await writeFile(outputPath, await savePdf(opened.doc));
}

/** Draws the form fields and annotations into the pages, removes them, and writes the document. */
export async function flattenPdf(sourcePath: string, outputPath: string): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  pagesOf(opened);
  const fonts = new DrawingFonts(opened.doc);
  await flattenDocument(opened.doc, fonts, new PageStamper(opened.doc));
  await fonts.finish();
  await writeFile(outputPath, await savePdf(opened.doc));
}
