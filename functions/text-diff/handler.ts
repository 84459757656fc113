import { diffTexts } from '#shared/data/text-diff.ts';
import { createJsonHandler } from '#shared/http/stack.ts';
import { textDiffRoute } from '#shared/routes/data.ts';

export const handler = createJsonHandler(textDiffRoute, ({ body }) => diffTexts(body));
