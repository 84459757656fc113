import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { protectPdf } from '#shared/pdf/protect.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfProtectRoute } from '#shared/routes/pdf-tools.ts';

export const handler = createFileHandler(pdfProtectRoute, async (request) => {
  const { sourceUrl, password, ownerPassword, userPassword, permissions } = request.body;
  const source = await downloadPdf(sourceUrl, request, password);
  const clean = await request.workspace.file('clean.pdf');
  const path = await request.workspace.file('protected.pdf');
  await protectPdf(
    source.path,
    clean,
    path,
    { ownerPassword, userPassword, permissions },
    { deadline: request.deadline, signal: request.signal },
  );
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
