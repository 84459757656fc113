import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { captureThumbnail } from '#shared/media/thumbnail.ts';
import { videoThumbnailRoute } from '#shared/routes/media.ts';

export const handler = createFileHandler(videoThumbnailRoute, async (request) => {
  const { sourceUrl, outputFormat, ...options } = request.body;
  const format = outputFormat === 'jpeg' ? 'jpg' : outputFormat;
  return captureThumbnail(
    await downloadMedia(sourceUrl, request),
    { ...options, outputFormat: format },
    mediaContext(request),
  );
});
