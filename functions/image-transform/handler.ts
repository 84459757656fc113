import { downloadImage } from '#shared/image/download.ts';
import { transformImage } from '#shared/image/transform.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imageTransformRoute } from '#shared/routes/image-tools.ts';

export const handler = createFileHandler(imageTransformRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await transformImage(source, options, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
