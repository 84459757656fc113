import { markdownToPdf } from '#shared/documents/convert.ts';
import { markdownToPdfBody } from '#shared/documents/schemas.ts';
import { createFileHandler } from '#shared/http/file-handler.ts';

export const handler = createFileHandler('markdown-to-pdf', markdownToPdfBody, markdownToPdf);
