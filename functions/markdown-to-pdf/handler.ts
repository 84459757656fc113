import { markdownToPdf } from '#shared/documents/convert.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { markdownToPdfRoute } from '#shared/routes/documents.ts';

export const handler = createFileHandler(markdownToPdfRoute, markdownToPdf);
