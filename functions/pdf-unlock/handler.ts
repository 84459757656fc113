import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { unlockPdf } from '#shared/pdf/unlock.ts';
import { pdfUnlockRoute } from '#shared/routes/pdf-tools.ts';

export const handler = createFileHandler(pdfUnlockRoute, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const path = await request.workspace.file('unlocked.pdf');
  await unlockPdf(source.path, path);
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
