import { webScreenshot } from '#shared/documents/convert.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { webScreenshotRoute } from '#shared/routes/documents.ts';

export const handler = createFileHandler(webScreenshotRoute, webScreenshot);
