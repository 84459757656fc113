import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { downloadMedia, mediaContext } from '#shared/media/source.ts';
import { drawWaveform } from '#shared/media/waveform.ts';
import { audioWaveformRoute } from '#shared/routes/media-tools.ts';

export const handler = createFileHandler(audioWaveformRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  return drawWaveform(await downloadMedia(sourceUrl, request), options, mediaContext(request));
});
