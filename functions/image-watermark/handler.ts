import { inField } from '#shared/errors.ts';
import { downloadImage } from '#shared/image/download.ts';
import { watermarkImage } from '#shared/image/watermark.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imageWatermarkRoute } from '#shared/routes/image-tools.ts';

export const handler = createFileHandler(imageWatermarkRoute, async (request) => {
  const { sourceUrl, imageUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const image =
    imageUrl === undefined
      ? undefined
      : await downloadImage(imageUrl, request, { field: 'imageUrl', fileName: 'mark' }).catch(
          (error: unknown) => {
            throw inField('imageUrl', error);
          },
        );
  const file = await watermarkImage(source, { ...options, image }, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
