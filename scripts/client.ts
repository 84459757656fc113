import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

/**
 * `npm run client`: writes clients/typescript/openapi.ts, the types of openapi.yaml as
 * openapi-typescript makes them with its default options, except that file answers (`format:
 * binary`) are typed `Blob`, as the client reads them. `npm run client -- --check` only reports
 * whether the file is out of date (a test runs it, as `npm run openapi -- --check`).
 */
const root = new URL('../', import.meta.url);
const target = new URL('clients/typescript/openapi.ts', root);
const check = process.argv.includes('--check');

const notice =
  '// Generated from openapi.yaml by `npm run client` (openapi-typescript); edit the routes, not this file.\n';

const ast = await openapiTS(new URL('openapi.yaml', root), {
  transform: (schema) =>
    schema.format === 'binary'
      ? ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'))
      : undefined,
});
const text = notice + astToString(ast);
const current = await readFile(target, 'utf8').catch(() => undefined);

if (current === text) {
  process.stdout.write('clients/typescript/openapi.ts is up to date\n');
} else if (check) {
  process.stderr.write('Out of date: clients/typescript/openapi.ts. Run npm run client.\n');
  process.exitCode = 1;
} else {
  await writeFile(target, text);
  process.stdout.write('Wrote clients/typescript/openapi.ts\n');
}
