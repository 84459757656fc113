import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { convertAudio } from '#shared/media/convert-audio.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { audioConvertRoute } from '#shared/routes/media.ts';

export const handler = createFileHandler(audioConvertRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return convertAudio(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
