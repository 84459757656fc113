import { createFileHandler } from '#shared/http/file-handler.ts';
import { convertAudio } from '#shared/media/convert-audio.ts';
import { audioConvertBody } from '#shared/media/schemas.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';

export const handler = createFileHandler('audio-convert', audioConvertBody, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return convertAudio(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
