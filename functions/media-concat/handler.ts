import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { concatMedia } from '#shared/media/concat.ts';
import { isMediaSourceFormat, mediaSourceFormats } from '#shared/media/formats.ts';
import { identifyMediaFormat } from '#shared/media/identify.ts';
import { mediaContext } from '#shared/media/source.ts';
import { downloadBatch } from '#shared/pdf/sources.ts';
import { mediaConcatRoute } from '#shared/routes/media-tools.ts';

export const handler = createFileHandler(mediaConcatRoute, async (request) => {
  const { sources, outputFormat } = request.body;
  const downloaded = await downloadBatch(sources, mediaSourceFormats, request, identifyMediaFormat);
  const inputs = downloaded.map(({ path, format, baseName }) => {
    // downloadBatch refuses every format outside the list; this narrows the type.
    if (!isMediaSourceFormat(format)) throw new Error(`download accepted ${format}`);
    return { path, format, baseName };
  });
  return concatMedia(inputs, outputFormat, mediaContext(request));
});
