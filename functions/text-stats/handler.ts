import { createJsonHandler } from '#shared/http/stack.ts';
import { textStatsBody } from '#shared/text/schemas.ts';
import { textStats } from '#shared/text/text-stats.ts';

export const handler = createJsonHandler('text-stats', textStatsBody, ({ body }) => textStats(body.text));
