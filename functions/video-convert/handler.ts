import { createFileHandler } from '#shared/http/file-handler.ts';
import { convertVideo } from '#shared/media/convert-video.ts';
import { videoConvertBody } from '#shared/media/schemas.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';

export const handler = createFileHandler('video-convert', videoConvertBody, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return convertVideo(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
