import { jsonResponse } from '#shared/http/respond.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import body from '#shared/routes/formats.generated.json' with { type: 'json' };
import { formatsRoute } from '#shared/routes/system.ts';

/**
 * The catalogue of the route table, worked out by `npm run openapi` (a test keeps it current), so
 * that this function does not build every route's schema at init.
 */
export const handler = createGetHandler(formatsRoute, () =>
  jsonResponse(200, body, { 'Cache-Control': 'public, max-age=3600' }),
);
