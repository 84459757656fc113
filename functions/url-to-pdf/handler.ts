import { urlToPdf } from '#shared/documents/convert.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { urlToPdfRoute } from '#shared/routes/documents.ts';

export const handler = createFileHandler(urlToPdfRoute, urlToPdf);
