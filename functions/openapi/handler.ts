import { createGetHandler } from '#shared/http/stack.ts';
import served from '#shared/openapi/openapi.generated.json' with { type: 'json' };
import { openapiRoute } from '#shared/routes/system.ts';

/**
 * The committed openapi.yaml, served byte for byte: `npm run openapi` writes the same text into a
 * JSON module that esbuild bundles into this function (a test keeps both files current).
 */
export const handler = createGetHandler(openapiRoute, () => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/yaml; charset=utf-8', 'Cache-Control': 'public, max-age=300' },
  body: served.yaml,
}));
