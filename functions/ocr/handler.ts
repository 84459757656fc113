import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { ocrContentTypes } from '#shared/ocr/limits.ts';
import { checkLanguagesOffered, ocrSource } from '#shared/ocr/ocr.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { ocrRoute } from '#shared/routes/ocr.ts';
import { downloadSource } from '#shared/source/download.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

export const handler = createFileHandler(ocrRoute, async (request) => {
  const { sourceUrl, languages, outputFormat } = request.body;
  // Malformed pages and languages not offered are refused before anything is downloaded.
  const pages = request.body.pages === undefined ? undefined : parseRangeSpec(request.body.pages, 'pages');
  checkLanguagesOffered(languages);
  const source = await downloadSource(sourceUrl, {
    workspace: request.workspace,
    maxBytes: request.limits.maxSourceBytes,
    tier: request.caller.tier,
    accept: [...imageInputFormats, 'pdf'],
    signal: request.signal,
    deadline: request.deadline,
  });
  const result = await ocrSource(source, {
    languages,
    pages,
    outputFormat,
    tier: request.caller.tier,
    workspace: request.workspace,
    deadline: request.deadline,
    signal: request.signal,
    onProgress: request.onProgress,
  });
  return {
    path: result.path,
    contentType: ocrContentTypes[outputFormat],
    fileName: `${source.baseName}.${outputFormat}`,
  };
});
