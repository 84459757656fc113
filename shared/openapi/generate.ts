import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { renderYaml } from '#shared/openapi/render.ts';
import type { RouteSpec } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import packageJson from '../../package.json' with { type: 'json' };

/**
 * The files `npm run openapi` writes, relative to the repository root: the document, and the same
 * text as a JSON module that the `GET /openapi.yaml` function imports, so that esbuild bundles it
 * and the function needs no file beside its bundle.
 */
export const generatedFiles = {
  document: 'openapi.yaml',
  servedModule: 'shared/openapi/openapi.generated.json',
} as const;

export function generateOpenApiYaml(table: readonly RouteSpec[] = routes): string {
  return renderYaml(
    buildOpenApiDocument(table, {
      version: packageJson.version,
      license: packageJson.license,
    }),
  );
}

export const servedModuleText = (yaml: string) => `${JSON.stringify({ yaml }, null, 2)}\n`;

/** Every generated file with the text it must have. */
export function generatedTexts(table: readonly RouteSpec[] = routes): Record<string, string> {
  const yaml = generateOpenApiYaml(table);
  return { [generatedFiles.document]: yaml, [generatedFiles.servedModule]: servedModuleText(yaml) };
}
