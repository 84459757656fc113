import { markdownToHtmlText } from '#shared/data/markdown-html.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { markdownToHtmlRoute } from '#shared/routes/data.ts';

export const handler = createJsonHandler(markdownToHtmlRoute, ({ body }) => ({
  html: markdownToHtmlText(body.markdown, body.fullDocument),
}));
