import { createJsonHandler } from '#shared/http/stack.ts';
import { downloadImage } from '#shared/image/download.ts';
import { readImageMetadata } from '#shared/image/metadata.ts';
import { imageMetadataRoute } from '#shared/routes/image.ts';

export const handler = createJsonHandler(imageMetadataRoute, async (request) =>
  readImageMetadata(await downloadImage(request.body.sourceUrl, request)),
);
