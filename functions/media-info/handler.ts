import { createJsonHandler } from '#shared/http/stack.ts';
import { describeMedia } from '#shared/media/info.ts';
import { downloadMedia } from '#shared/media/source.ts';
import { mediaInfoRoute } from '#shared/routes/media.ts';

export const handler = createJsonHandler(mediaInfoRoute, async (request) =>
  describeMedia(await downloadMedia(request.body.sourceUrl, request), request),
);
