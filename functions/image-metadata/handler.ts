import { createJsonHandler } from '#shared/http/stack.ts';
import { downloadImage } from '#shared/image/download.ts';
import { readImageMetadata } from '#shared/image/metadata.ts';
import { imageMetadataBody } from '#shared/image/schemas.ts';

export const handler = createJsonHandler('image-metadata', imageMetadataBody, async (request) =>
  readImageMetadata(await downloadImage(request.body.sourceUrl, request)),
);
