import { convertImage } from '#shared/image/convert.ts';
import { downloadImage } from '#shared/image/download.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imageConvertRoute } from '#shared/routes/image.ts';

export const handler = createFileHandler(imageConvertRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await convertImage(source, options, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
