import { createFileHandler } from '#shared/http/file-handler.ts';
import { thumbnailBody } from '#shared/media/schemas.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { captureThumbnail } from '#shared/media/thumbnail.ts';

export const handler = createFileHandler('video-thumbnail', thumbnailBody, async (request) => {
  const { sourceUrl, outputFormat, ...options } = request.body;
  const format = outputFormat === 'jpeg' ? 'jpg' : outputFormat;
  return captureThumbnail(
    await downloadMedia(sourceUrl, request),
    { ...options, outputFormat: format },
    mediaContext(request),
  );
});
