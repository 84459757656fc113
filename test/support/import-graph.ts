import { readdirSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';

/** The project's root folder, where esbuild resolves the entry points. */
export const projectFolder = new URL('../../', import.meta.url).pathname;

/** Every function's handler, as an entry point. */
export const handlerEntries = readdirSync(`${projectFolder}functions`, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('handler.ts'))
  .map((file) => `functions/${file}`);

/** The import graph esbuild reads from the entry points (in `folder`), packages left external. */
export async function importGraph(entryPoints: string[], folder: string = projectFolder): Promise<Metafile> {
  const result = await build({
    absWorkingDir: folder,
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

/** Modules and packages reached from `entry` through static imports only (what init evaluates). */
export function loadedAtInit(graph: Metafile, entry: string): Set<string> {
  const reached = new Set<string>([entry]);
  const queue = [entry];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    for (const target of graph.inputs[path]?.imports ?? []) {
      if (target.kind === 'dynamic-import' || reached.has(target.path)) continue;
      reached.add(target.path);
      if (!target.external) queue.push(target.path);
    }
  }
  return reached;
}
