import { officeToPdf } from '#shared/documents/office-to-pdf.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { officeToPdfRoute } from '#shared/routes/office.ts';

export const handler = createFileHandler(officeToPdfRoute, officeToPdf);
