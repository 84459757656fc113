import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { normalizeAudio } from '#shared/media/normalize.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { audioNormalizeRoute } from '#shared/routes/media-tools.ts';

export const handler = createFileHandler(audioNormalizeRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return normalizeAudio(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
