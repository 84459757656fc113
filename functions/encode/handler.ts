import { createJsonHandler } from '#shared/http/stack.ts';
import { encodeRoute } from '#shared/routes/text.ts';
import { encodeText } from '#shared/text/encode.ts';

export const handler = createJsonHandler(encodeRoute, ({ body }) => ({
  encoding: body.encoding,
  result: encodeText(body.text, body.encoding),
}));
