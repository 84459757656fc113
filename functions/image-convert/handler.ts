import { createFileHandler } from '#shared/http/file-handler.ts';
import { convertImage } from '#shared/image/convert.ts';
import { downloadImage } from '#shared/image/download.ts';
import { imageConvertBody } from '#shared/image/schemas.ts';

export const handler = createFileHandler('image-convert', imageConvertBody, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await convertImage(source, options, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
