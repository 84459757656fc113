import { createJsonHandler } from '#shared/http/stack.ts';
import { decodeRoute } from '#shared/routes/text.ts';
import { decodeText } from '#shared/text/decode.ts';

export const handler = createJsonHandler(decodeRoute, ({ body }) => ({
  encoding: body.encoding,
  result: decodeText(body.text, body.encoding),
}));
