import { createJsonHandler } from '#shared/http/stack.ts';
import { describeMedia } from '#shared/media/info.ts';
import { mediaInfoBody } from '#shared/media/schemas.ts';
import { downloadMedia } from '#shared/media/source.ts';

export const handler = createJsonHandler('media-info', mediaInfoBody, async (request) =>
  describeMedia(await downloadMedia(request.body.sourceUrl, request), request),
);
