import { createJsonHandler } from '#shared/http/stack.ts';
import { slugifyRoute } from '#shared/routes/text.ts';
import { slugify } from '#shared/text/slugify.ts';

export const handler = createJsonHandler(slugifyRoute, ({ body }) => ({
  slug: slugify(body.text, body),
}));
