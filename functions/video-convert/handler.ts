import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { convertAnimation } from '#shared/media/convert-animation.ts';
import { convertVideo } from '#shared/media/convert-video.ts';
import { isAnimationFormat } from '#shared/media/formats.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { videoConvertRoute } from '#shared/routes/media.ts';

export const handler = createFileHandler(videoConvertRoute, async (request) => {
  const { sourceUrl, outputFormat, loop, ...options } = request.body;
  const input = await downloadMedia(sourceUrl, request);
  const context = mediaContext(request);
  if (isAnimationFormat(outputFormat))
    return convertAnimation(input, { ...options, outputFormat, loop }, context);
  return convertVideo(input, { ...options, outputFormat }, context);
});
