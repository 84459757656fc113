import { readdirSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';

/** The project's root folder, where esbuild resolves the entry points. */
export const projectFolder = new URL('../../', import.meta.url).pathname;

/** Every function's handler, as an entry point. */
export const handlerEntries = readdirSync(`${projectFolder}functions`, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('handler.ts'))
  .map((file) => `functions/${file}`);

/** The import graph esbuild reads from the entry points, packages left external. */
export async function importGraph(entryPoints: string[]): Promise<Metafile> {
  const result = await build({
    absWorkingDir: projectFolder,
    entryPoints,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir: 'out',
    logLevel: 'silent',
  });
  return result.metafile;
}
