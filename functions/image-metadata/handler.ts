import { createJsonHandler } from '#shared/http/stack.ts';
import { downloadImage } from '#shared/image/download.ts';
import { readImageMetadata } from '#shared/image/metadata.ts';
import { readPlaceholder } from '#shared/image/placeholder.ts';
import { imageMetadataRoute } from '#shared/routes/image.ts';

export const handler = createJsonHandler(imageMetadataRoute, async (request) => {
  const source = await downloadImage(request.body.sourceUrl, request);
  const metadata = await readImageMetadata(source);
  return request.body.placeholder ? { ...metadata, ...(await readPlaceholder(source)) } : metadata;
});
