import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { rasterTypes, ZIP_TYPE } from '#shared/pdf/limits.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { rasterizePdf } from '#shared/pdf/rasterize.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfToImageRoute } from '#shared/routes/pdf.ts';

export const handler = createFileHandler(pdfToImageRoute, async (request) => {
  const { sourceUrl, dpi } = request.body;
  const format = request.body.outputFormat === 'jpeg' ? 'jpg' : request.body.outputFormat;
  // Malformed page ranges are refused before anything is downloaded.
  const pages = request.body.pages === undefined ? undefined : parseRangeSpec(request.body.pages, 'pages');
  const source = await downloadPdf(sourceUrl, request, request.body.password);
  const result = await rasterizePdf(source.path, {
    format,
    dpi,
    pages,
    baseName: source.baseName,
    workspace: request.workspace,
    onProgress: request.onProgress,
    deadline: request.deadline,
  });
  const zip = result.kind === 'zip';
  return {
    path: result.path,
    contentType: zip ? ZIP_TYPE : rasterTypes[format],
    fileName: `${source.baseName}.${zip ? 'zip' : format}`,
  };
});
