import { createJsonHandler } from '#shared/http/stack.ts';
import { textStatsRoute } from '#shared/routes/text.ts';
import { textStats } from '#shared/text/text-stats.ts';

export const handler = createJsonHandler(textStatsRoute, ({ body }) => textStats(body.text));
