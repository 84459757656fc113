import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { copyPackages, directorySize } from '../../layers/copy-packages.ts';
import { type BrowserLayerName, browserLayerNames, browserMarker } from './browser-layer.ts';

export type LayerName = 'sharp' | 'ffmpeg' | 'qpdf' | 'tesseract' | BrowserLayerName;

/**
 * Packages that cannot be inlined into a bundle, and where a function finds them at run time.
 * - sharp: a native addon plus the libvips shared libraries; the sharp layer holds them.
 * - @node-rs/*: N-API addons that pick a prebuilt binary by platform when loaded.
 * - @hyzyla/pdfium: reads pdfium.wasm from its own folder.
 * - swagger-ui-dist: its assets are files served as they are.
 * - zxing-wasm: its reader loads zxing_reader.wasm from its own folder.
 * Each is loaded with `require`, which (unlike an ES import) also searches NODE_PATH, where Lambda
 * lists the layers' nodejs/node_modules folders.
 */
export const unbundled: Record<string, { from: 'layer'; layer: LayerName } | { from: 'function' }> = {
  sharp: { from: 'layer', layer: 'sharp' },
  '@node-rs/argon2': { from: 'function' },
  '@node-rs/bcrypt': { from: 'function' },
  '@hyzyla/pdfium': { from: 'function' },
  'swagger-ui-dist': { from: 'function' },
  'zxing-wasm': { from: 'function' },
};

/** The unbundled packages copied into the function's own folder. */
const shippedWithFunction = Object.keys(unbundled).filter((pkg) => unbundled[pkg]?.from === 'function');

/**
 * Modules that give a bundle layers: a bundle that contains one gets its layers (and, by
 * api-function.ts, the environment that points to them).
 */
const layerMarkers: ReadonlyArray<{ module: string; layers: readonly LayerName[]; packages?: string[] }> = [
  // Runs ffmpeg and ffprobe.
  { module: 'shared/media/binaries.ts', layers: ['ffmpeg'] },
  // Renders text with libvips.
  { module: 'shared/image/fonts.ts', layers: ['fonts'] },
  // Draws text into PDFs: the fonts, and harfbuzzjs, whose hb-subset WebAssembly file it reads at run time.
  { module: 'shared/pdf/fonts.ts', layers: ['fonts'], packages: ['harfbuzzjs'] },
  // Runs qpdf (a PDF route given a password, protect, unlock).
  { module: 'shared/pdf/qpdf.ts', layers: ['qpdf'] },
  // Runs tesseract.
  { module: 'shared/ocr/tesseract.ts', layers: ['tesseract'] },
  // Drives the browser.
  { module: browserMarker, layers: browserLayerNames },
];

export interface FunctionBundle {
  /** Folder under functions/ and the route table's `function` value. */
  name: string;
  /**
   * Ready to be zipped: index.mjs, the chunks it loads on demand (`chunks/`), their source maps and
   * the unbundled packages it needs.
   */
  dir: string;
  layers: LayerName[];
  /** Unzipped size of the folder. */
  sizeBytes: number;
}

export type FunctionBundles = ReadonlyMap<string, FunctionBundle>;

export const handlerPath = (rootDir: string, name: string) => join(rootDir, 'functions', name, 'handler.ts');

/** A function folder may be nested (`docs/assets`); its bundle gets a flat folder of its own. */
export const bundleFolder = (name: string) => name.replaceAll('/', '--');

/** Fails with every missing handler named, before anything is built. */
export function assertHandlersExist(rootDir: string, names: readonly string[]): void {
  const missing = names.filter((name) => !existsSync(handlerPath(rootDir, name)));
  if (missing.length > 0) {
    throw new Error(
      `No handler for ${missing.map((name) => `functions/${name}/handler.ts`).join(', ')}: ` +
        'every function named in the route table needs one',
    );
  }
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * What CommonJS dependencies expect of their module scope, which an ES module lacks: `require`,
 * and `__filename`/`__dirname` (libheif-js, behind HEIC decoding, locates itself with them). Each
 * file of a bundle (index.mjs or a chunk) gets them for itself, as a CommonJS file there would.
 */
export const commonJsGlobals = [
  "import { createRequire as __createRequire } from 'node:module';",
  "import { dirname as __pathDirname } from 'node:path';",
  "import { fileURLToPath as __fileURLToPath } from 'node:url';",
  'const require = __createRequire(import.meta.url);',
  'const __filename = __fileURLToPath(import.meta.url);',
  'const __dirname = __pathDirname(__filename);',
].join(' ');

/**
 * Built-in modules loaded with `require` rather than an ES import. Node's ES module facade of
 * node:http reads every export once, and three of them (WebSocket, CloseEvent, MessageEvent) load
 * undici on first read: some 35 ms of every function's init for a `STATUS_CODES` (@middy/util).
 * Required, only the properties used are read.
 */
const requiredBuiltins = ['node:http'];

const packageFilter = (packages: readonly string[]) =>
  new RegExp(`^(${packages.map(escapeRegExp).join('|')})(/.*)?$`);

/**
 * Turns every import of these packages into a run-time `require`, left to Node's lookup; except a
 * dynamic `import()` of a package in `importedAsIs`, which stays an `import()` that Node resolves
 * from the function's own node_modules. Across a split point a required package would come back
 * as a namespace holding only `default`, where the code expects the package's named exports, as
 * an `import()` of its ES build gives them under Node (pdfium, loaded on first use).
 */
function requireAtRunTime(packages: readonly string[], importedAsIs: readonly string[]): Plugin {
  const namespace = 'require-at-run-time';
  const asIs = packageFilter(importedAsIs);
  return {
    name: namespace,
    setup(esbuild) {
      esbuild.onResolve({ filter: packageFilter(packages) }, (args) =>
        args.namespace === namespace || (args.kind === 'dynamic-import' && asIs.test(args.path))
          ? { path: args.path, external: true }
          : { path: args.path, namespace },
      );
      esbuild.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

const endsWith = (inputs: readonly string[], module: string) =>
  inputs.some((input) => input.replaceAll('\\', '/').endsWith(module));

/** One function to bundle: its folder name, and the file its bundle starts from. */
export interface BundleEntry {
  name: string;
  entry: string;
}

/**
 * Bundles functions, each into a folder of its own (ESM, minified, linked source maps, Node 24),
 * split at their dynamic imports: what a handler reaches only through `import()` (libheif-js for
 * HEIC, the job modules and AWS SDK clients, pdfium) goes to files under `chunks/` that Node reads
 * and compiles on the first request that takes that path, not at every cold start. Then copies into
 * each folder the unbundled packages it imports that no layer provides.
 *
 * All functions are one esbuild build, so each shared module is parsed once, not once a function;
 * each folder then gets its entry as `index.mjs` and exactly the chunks that entry reaches.
 * `#shared/...` imports resolve through package.json "imports", as they do under Node.
 */
export async function bundleEntries(
  rootDir: string,
  outDir: string,
  entries: readonly BundleEntry[],
): Promise<FunctionBundles> {
  const staging = join(outDir, '.build');
  const entryFile = (name: string) => `index-${bundleFolder(name)}`;
  const result = await build({
    absWorkingDir: rootDir,
    entryPoints: entries.map(({ name, entry }) => ({ in: entry, out: entryFile(name) })),
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    banner: { js: commonJsGlobals },
    plugins: [requireAtRunTime([...Object.keys(unbundled), ...requiredBuiltins], shippedWithFunction)],
  });
  const outputs = result.metafile.outputs;
  const bundles = entries.map(({ name }) => {
    const entryOutput = relative(rootDir, join(staging, `${entryFile(name)}.mjs`));
    if (!outputs[entryOutput]) throw new Error(`esbuild produced no bundle for ${name}`);
    const reached = reachableOutputs(outputs, entryOutput);
    const dir = join(outDir, bundleFolder(name));
    for (const output of reached) {
      const from = join(rootDir, output);
      const to = output === entryOutput ? join(dir, 'index.mjs') : join(dir, relative(staging, from));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(`${from}.map`, `${to}.map`);
      if (output !== entryOutput) copyFileSync(from, to);
      // The entry's last line names its source map, which is index.mjs.map now.
      else
        writeFileSync(
          to,
          readFileSync(from, 'utf8').replace(sourceMapComment, '//# sourceMappingURL=index.mjs.map'),
        );
    }
    return { name, dir, reached };
  });
  const built = bundles.map(({ name, dir, reached }) => {
    const inputs = reached.flatMap((output) => Object.keys(outputs[output]!.inputs));
    const imported = new Set(
      reached.flatMap((output) =>
        outputs[output]!.imports.filter((entry) => entry.external).map((entry) => packageOf(entry.path)),
      ),
    );
    const layers = new Set<LayerName>();
    const ownPackages: string[] = [];
    for (const pkg of imported) {
      const where = unbundled[pkg];
      if (!where) continue;
      if (where.from === 'layer') layers.add(where.layer);
      else ownPackages.push(pkg);
    }
    for (const marker of layerMarkers) {
      if (!endsWith(inputs, marker.module)) continue;
      for (const layer of marker.layers) layers.add(layer);
      ownPackages.push(...(marker.packages ?? []));
    }
    if (ownPackages.length > 0) copyPackages(ownPackages, rootDir, join(dir, 'node_modules'));
    return { name, dir, layers: [...layers].sort(), sizeBytes: directorySize(dir) };
  });
  rmSync(staging, { recursive: true, force: true });
  return new Map(built.map((bundle) => [bundle.name, bundle]));
}

/** The comment esbuild ends a file with when it writes a linked source map. */
const sourceMapComment = /\/\/# sourceMappingURL=\S+\s*$/;

/** The output files an entry loads, statically or on demand, itself included. */
function reachableOutputs(outputs: Metafile['outputs'], entry: string): string[] {
  const reached = new Set([entry]);
  for (const output of reached) {
    for (const imported of outputs[output]!.imports) {
      if (!imported.external && imported.path in outputs) reached.add(imported.path);
    }
  }
  return [...reached];
}

/** Bundles one function into its own folder (bundleEntries); `entry` defaults to its handler. */
export async function bundleFunction(
  rootDir: string,
  outDir: string,
  name: string,
  entry = handlerPath(rootDir, name),
): Promise<FunctionBundle> {
  const bundles = await bundleEntries(rootDir, outDir, [{ name, entry }]);
  return bundles.get(name)!;
}

/** Bundles every function named, each into a folder of its own, in one build (bundleEntries). */
export async function bundleFunctions(options: {
  rootDir: string;
  outDir: string;
  names: readonly string[];
}): Promise<FunctionBundles> {
  const { rootDir, outDir } = options;
  const names = [...new Set(options.names)].sort();
  assertHandlersExist(rootDir, names);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  return bundleEntries(
    rootDir,
    outDir,
    names.map((name) => ({ name, entry: handlerPath(rootDir, name) })),
  );
}
