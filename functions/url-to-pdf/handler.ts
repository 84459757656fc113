import { urlToPdf } from '#shared/documents/convert.ts';
import { urlToPdfBody } from '#shared/documents/schemas.ts';
import { createFileHandler } from '#shared/http/file-handler.ts';

export const handler = createFileHandler('url-to-pdf', urlToPdfBody, urlToPdf);
