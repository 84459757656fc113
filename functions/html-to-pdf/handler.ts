import { htmlToPdf } from '#shared/documents/convert.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { htmlToPdfRoute } from '#shared/routes/documents.ts';

export const handler = createFileHandler(htmlToPdfRoute, htmlToPdf);
