import { describe, expect, it } from 'vitest';
import { handlerEntries, importGraph } from '../../support/import-graph.ts';

/**
 * The shape of the code, checked from its import graph as esbuild reads it: the route table is a
 * leaf that loads no engine, and every folder imports only folders below it.
 */

/** The folders of the project from the bottom up; a module may import its own layer or lower ones. */
const layers = [
  ['shared'],
  ['shared/auth', 'shared/source'],
  [
    'shared/text',
    'shared/crypto',
    'shared/image',
    'shared/pdf',
    'shared/media',
    'shared/documents',
    'shared/codes',
  ],
  ['shared/routes'],
  ['shared/http'],
  ['shared/jobs'],
  ['shared/openapi'],
  ['functions'],
  ['infra'],
];

const folderOf = (path: string) => {
  if (path === 'shared/routes.ts') return 'shared/routes';
  const parts = path.split('/');
  if (parts[0] === 'shared') return parts.length > 2 ? `shared/${parts[1]}` : 'shared';
  return parts[0] ?? path;
};
const layerOf = (folder: string) => layers.findIndex((layer) => layer.includes(folder));

const handlers = handlerEntries;

describe('the route table', () => {
  it('loads no engine: only zod (and color with its colour names, which read and state CSS colours in a schema), the rows, and the schemas, limits and formats of each area', async () => {
    const graph = await importGraph(['shared/routes.ts']);
    const packages = new Set(
      Object.values(graph.inputs).flatMap((input) =>
        input.imports.filter((each) => each.external).map((each) => each.path),
      ),
    );
    expect([...packages].sort()).toEqual(['color', 'color-name', 'zod']);
    const modules = Object.keys(graph.inputs);
    const allowed =
      /^shared\/(routes\.ts|routes\/[a-z-]+\.ts|errors\.ts|tiers\.ts|schema-rules\.ts|[a-z]+\/(schemas|limits|formats)\.ts|[a-z]+\/[a-z-]*(limits|schemas?)\.ts|image\/colour\.ts|jobs\/callback\.ts)$/;
    expect(modules.filter((path) => !allowed.test(path))).toEqual([]);
  });
});

describe('the layers', () => {
  it('import downward only: no module imports a folder above its own', async () => {
    const graph = await importGraph([
      ...handlers,
      'infra/app.ts',
      'infra/local/start.ts',
      'shared/openapi/generate.ts',
    ]);
    const upward: string[] = [];
    for (const [path, input] of Object.entries(graph.inputs)) {
      const from = layerOf(folderOf(path));
      if (from < 0) continue;
      for (const target of input.imports) {
        if (target.external) continue;
        const to = layerOf(folderOf(target.path));
        if (to > from) upward.push(`${path} → ${target.path}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no cycles between the folders of one layer', async () => {
    const graph = await importGraph([...handlers, 'infra/app.ts', 'infra/local/start.ts']);
    const edges = new Map<string, Set<string>>();
    for (const [path, input] of Object.entries(graph.inputs)) {
      const from = folderOf(path);
      for (const target of input.imports) {
        const to = folderOf(target.path);
        if (target.external || to === from) continue;
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const cycles = [...edges].flatMap(([from, targets]) =>
      [...targets].filter((to) => edges.get(to)?.has(from)).map((to) => `${from} ⇄ ${to}`),
    );
    expect(cycles).toEqual([]);
  });
});
