import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { setPdfMetadata } from '#shared/pdf/metadata.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfMetadataRoute } from '#shared/routes/pdf-tools.ts';

const dateOf = (value: string | null | undefined) =>
  value === undefined || value === null ? value : new Date(value);

export const handler = createFileHandler(pdfMetadataRoute, async (request) => {
  const { sourceUrl, password, creationDate, modDate, ...text } = request.body;
  const source = await downloadPdf(sourceUrl, request, password);
  const path = await request.workspace.file('metadata.pdf');
  await setPdfMetadata(source.path, path, {
    ...text,
    creationDate: dateOf(creationDate),
    modDate: dateOf(modDate),
  });
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
