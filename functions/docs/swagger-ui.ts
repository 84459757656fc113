import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import swaggerUi from 'swagger-ui-dist/package.json' with { type: 'json' };

/**
 * Swagger UI's files, read from the swagger-ui-dist package once per container. The package is
 * resolved by name (its manifest) so that the Lambda bundle ships it beside the function.
 */
export const swaggerUiVersion = swaggerUi.version;
const packageFolder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const loaded = new Map<string, string>();

export function swaggerUiFile(name: 'swagger-ui.css' | 'swagger-ui-bundle.js'): string {
  let text = loaded.get(name);
  if (text === undefined) {
    // The source maps are not served; without the comment browsers do not ask for them.
    text = readFileSync(join(packageFolder, name), 'utf8').replace(
      /\n\/[/*]# sourceMappingURL=\S+(?: \*\/)?\s*$/,
      '\n',
    );
    loaded.set(name, text);
  }
  return text;
}

/**
 * A script's text made safe inside `<script>…</script>`: every `<` that starts `<!--`, `<script`
 * or `</script` is written `\x3C`, which means the same in the string and regular-expression
 * literals where the bundle has them, and can no longer end or re-enter the element early.
 */
export function inlineScriptText(script: string): string {
  return script.replace(/<(?=!--|\/?script)/gi, (match, offset: number) => {
    if (script[offset - 1] === '\\') throw new Error(`an escaped "<" at ${offset} cannot be inlined`);
    return match && '\\x3C';
  });
}

/** A stylesheet's text made safe inside `<style>…</style>`. */
export function inlineStyleText(css: string): string {
  if (/<\/style/i.test(css)) throw new Error('the stylesheet holds "</style" and cannot be inlined');
  return css;
}
