import { readImageCodes, readPdfCodes } from '#shared/codes/read.ts';
import { DEFAULT_READ_PAGES } from '#shared/codes/schemas.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { isImageInputFormat } from '#shared/image/formats.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { barcodeReadRoute } from '#shared/routes/codes.ts';
import { downloadSource } from '#shared/source/download.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

export const handler = createJsonHandler(barcodeReadRoute, async (request) => {
  // Malformed pages are refused before anything is downloaded.
  const pages = request.body.pages === undefined ? undefined : parseRangeSpec(request.body.pages, 'pages');
  const source = await downloadSource(request.body.sourceUrl, {
    workspace: request.workspace,
    maxBytes: request.limits.maxSourceBytes,
    tier: request.caller.tier,
    accept: [...imageInputFormats, 'pdf'],
    signal: request.signal,
    deadline: request.deadline,
  });
  const codes = isImageInputFormat(source.format)
    ? await readImageCodes({ path: source.path, format: source.format })
    : await readPdfCodes(source.path, {
        pages,
        firstPages: DEFAULT_READ_PAGES,
        workspace: request.workspace,
        deadline: request.deadline,
      });
  return { codes };
});
