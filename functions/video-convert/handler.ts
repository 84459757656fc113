import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { convertVideo } from '#shared/media/convert-video.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { videoConvertRoute } from '#shared/routes/media.ts';

export const handler = createFileHandler(videoConvertRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return convertVideo(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
