import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import swaggerUi from 'swagger-ui-dist/package.json' with { type: 'json' };
import { docsAssets, isDocsAsset } from '#functions/docs/page.ts';
import { HttpError } from '#shared/http/errors.ts';
import { createGetHandler } from '#shared/http/stack.ts';

/**
 * The files are read from the swagger-ui-dist package at run time, once per container. The package
 * is imported by name (its manifest) so that the Lambda bundle ships it beside the function.
 */
const packageFolder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const loaded = new Map<string, Promise<string>>();

async function readAsset(name: string): Promise<string> {
  const text = await readFile(join(packageFolder, name), 'utf8');
  // The source maps are not served; without the comment browsers do not ask for them.
  return text.replace(/\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/, '\n');
}

export const handler = createGetHandler('docs-assets', async ({ params }) => {
  const name = params.asset;
  if (!isDocsAsset(name)) {
    throw new HttpError(
      'not_found',
      `No asset ${name ?? ''}; there are ${Object.keys(docsAssets).join(' and ')}.`,
    );
  }
  let body = loaded.get(name);
  if (!body) {
    body = readAsset(name);
    body.catch(() => loaded.delete(name));
    loaded.set(name, body);
  }
  return {
    statusCode: 200,
    headers: {
      'Content-Type': docsAssets[name],
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=86400',
      ETag: `"swagger-ui-dist@${swaggerUi.version}"`,
    },
    body: await body,
  };
});
