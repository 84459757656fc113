import { createFileHandler } from '#shared/http/file-handler.ts';
import { downloadImage } from '#shared/image/download.ts';
import { resizeImage } from '#shared/image/resize.ts';
import { imageResizeBody } from '#shared/image/schemas.ts';

export const handler = createFileHandler('image-resize', imageResizeBody, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await resizeImage(source, options, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
