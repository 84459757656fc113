import { webScreenshot } from '#shared/documents/convert.ts';
import { webScreenshotBody } from '#shared/documents/schemas.ts';
import { createFileHandler } from '#shared/http/file-handler.ts';

export const handler = createFileHandler('web-screenshot', webScreenshotBody, webScreenshot);
