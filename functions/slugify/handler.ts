import { createJsonHandler } from '#shared/http/stack.ts';
import { slugifyBody } from '#shared/text/schemas.ts';
import { slugify } from '#shared/text/slugify.ts';

export const handler = createJsonHandler('slugify', slugifyBody, ({ body }) => ({
  slug: slugify(body.text, body),
}));
