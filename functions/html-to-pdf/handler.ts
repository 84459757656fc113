import { htmlToPdf } from '#shared/documents/convert.ts';
import { htmlToPdfBody } from '#shared/documents/schemas.ts';
import { createFileHandler } from '#shared/http/file-handler.ts';

export const handler = createFileHandler('html-to-pdf', htmlToPdfBody, htmlToPdf);
