import { buildOpenApiDocument } from '#shared/openapi/document.ts';
import { renderYaml } from '#shared/openapi/render.ts';
import { formatCatalogue } from '#shared/routes/catalogue.ts';
import type { RouteSpec } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import { formatAliases } from '#shared/source/formats.ts';
import packageJson from '../../package.json' with { type: 'json' };

/**
 * The files `npm run openapi` writes, relative to the repository root: the document; the same
 * text as a JSON module that the `GET /openapi.yaml` function imports, so that esbuild bundles it
 * and the function needs no file beside its bundle; and `GET /formats`'s answer, so that function
 * starts without building every route's schema to work it out.
 */
export const generatedFiles = {
  document: 'openapi.yaml',
  servedModule: 'shared/openapi/openapi.generated.json',
  formatsModule: 'shared/routes/formats.generated.json',
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

/** `GET /formats`'s answer: the catalogue of the route table, and the format aliases. */
export const formatsModuleText = (table: readonly RouteSpec[]) =>
  `${JSON.stringify({ categories: formatCatalogue(table), aliases: formatAliases }, null, 2)}\n`;

/** Every generated file with the text it must have. */
export function generatedTexts(table: readonly RouteSpec[] = routes): Record<string, string> {
  const yaml = generateOpenApiYaml(table);
  return {
    [generatedFiles.document]: yaml,
    [generatedFiles.servedModule]: servedModuleText(yaml),
    [generatedFiles.formatsModule]: formatsModuleText(table),
  };
}
