import { readFile, writeFile } from 'node:fs/promises';
import { generatedTexts } from '#shared/openapi/generate.ts';

/**
 * `npm run openapi`: writes openapi.yaml, and the modules the /openapi.yaml and /formats functions
 * serve, from the route table. `npm run openapi -- --check` only reports files that are out of date.
 */
const check = process.argv.includes('--check');
const root = new URL('../', import.meta.url);
const stale: string[] = [];

for (const [file, text] of Object.entries(generatedTexts())) {
  const url = new URL(file, root);
  const current = await readFile(url, 'utf8').catch(() => undefined);
  if (current === text) continue;
  stale.push(file);
  if (!check) await writeFile(url, text);
}

if (check && stale.length > 0) {
  process.stderr.write(`Out of date: ${stale.join(', ')}. Run npm run openapi.\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(stale.length ? `Wrote ${stale.join(', ')}\n` : 'openapi.yaml is up to date\n');
}
