import { parseCssColour } from '#shared/image/colour.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { watermarkImageFormats } from '#shared/pdf/draw-limits.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { watermarkPdf } from '#shared/pdf/watermark.ts';
import { pdfWatermarkRoute } from '#shared/routes/pdf-draw.ts';
import { downloadSource } from '#shared/source/download.ts';

export const handler = createFileHandler(pdfWatermarkRoute, async (request) => {
  const { sourceUrl, password, text, imageUrl, pages, color, ...options } = request.body;
  // Malformed pages are refused before anything is downloaded.
  const ranges = pages === undefined ? undefined : parseRangeSpec(pages, 'pages');
  const source = await downloadPdf(sourceUrl, request, password);
  let mark: Parameters<typeof watermarkPdf>[2]['mark'];
  if (imageUrl === undefined) mark = { text: text ?? '' };
  else {
    const image = await downloadSource(imageUrl, {
      workspace: request.workspace,
      maxBytes: request.limits.maxSourceBytes,
      tier: request.caller.tier,
      accept: watermarkImageFormats,
      signal: request.signal,
      deadline: request.deadline,
      field: 'imageUrl',
      fileName: 'mark-image',
    });
    mark = { image: { path: image.path, format: image.format as (typeof watermarkImageFormats)[number] } };
  }
  const path = await request.workspace.file('watermarked.pdf');
  await watermarkPdf(source.path, path, {
    ...options,
    mark,
    color: parseCssColour(color) ?? { r: 128, g: 128, b: 128 },
    rotation: options.rotation ?? (imageUrl === undefined ? 45 : 0),
    pages: ranges,
  });
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
