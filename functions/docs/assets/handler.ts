import { docsAssets, isDocsAsset } from '#functions/docs/page.ts';
import { swaggerUiFile, swaggerUiVersion } from '#functions/docs/swagger-ui.ts';
import { ApiError } from '#shared/errors.ts';
import { createGetHandler } from '#shared/http/stack.ts';
import { docsAssetsRoute } from '#shared/routes/system.ts';

export const handler = createGetHandler(docsAssetsRoute, ({ params }) => {
  const name = params.asset;
  if (!isDocsAsset(name)) {
    throw new ApiError(
      'not_found',
      `No asset ${name ?? ''}; there are ${Object.keys(docsAssets).join(' and ')}.`,
    );
  }
  return {
    statusCode: 200,
    headers: {
      'Content-Type': docsAssets[name],
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=86400',
      ETag: `"swagger-ui-dist@${swaggerUiVersion}"`,
    },
    body: swaggerUiFile(name),
  };
});
