import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { copyPackages, directorySize } from '../../layers/copy-packages.ts';
import { type BrowserLayerName, browserLayerNames, browserMarker } from './browser-layer.ts';

export type LayerName = 'sharp' | 'ffmpeg' | BrowserLayerName;

/**
 * Packages that cannot be inlined into a bundle, and where a function finds them at run time.
 * - sharp: a native addon plus the libvips shared libraries; the sharp layer holds them.
 * - @node-rs/*: N-API addons that pick a prebuilt binary by platform when loaded.
 * - @hyzyla/pdfium: reads pdfium.wasm from its own folder.
 * - swagger-ui-dist: its assets are files served as they are.
 * Each is loaded with `require`, which (unlike an ES import) also searches NODE_PATH, where Lambda
 * lists the layers' nodejs/node_modules folders.
 */
export const unbundled: Record<string, { from: 'layer'; layer: LayerName } | { from: 'function' }> = {
  sharp: { from: 'layer', layer: 'sharp' },
  '@node-rs/argon2': { from: 'function' },
  '@node-rs/bcrypt': { from: 'function' },
  '@hyzyla/pdfium': { from: 'function' },
  'swagger-ui-dist': { from: 'function' },
};

/** A bundle that contains this module runs ffmpeg, so it gets the ffmpeg layer and its paths. */
const ffmpegMarker = 'shared/media/binaries.ts';

export interface FunctionBundle {
  /** Folder under functions/ and the route table's `function` value. */
  name: string;
  /** Ready to be zipped: index.mjs, its source map and the unbundled packages it needs. */
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
 * and `__filename`/`__dirname` (libheif-js, behind HEIC decoding, locates itself with them). They
 * name the bundle's own index.mjs and its folder, as they would for a CommonJS file there.
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

/** Turns every import of these packages into a run-time `require`, left to Node's lookup. */
function requireAtRunTime(packages: readonly string[]): Plugin {
  const namespace = 'require-at-run-time';
  const filter = new RegExp(`^(${packages.map(escapeRegExp).join('|')})(/.*)?$`);
  return {
    name: namespace,
    setup(esbuild) {
      esbuild.onResolve({ filter }, (args) =>
        args.namespace === namespace ? { path: args.path, external: true } : { path: args.path, namespace },
      );
      esbuild.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * zod re-exports the messages of every language it knows through its `z` namespace
 * (`z.locales`), about 260 KB minified, and esbuild cannot drop what a namespace object reaches.
 * The service answers in English only (zod loads English itself), so zod's locale index is
 * bundled as English alone: half of a text function's bundle, and of its parse time at init.
 */
function englishOnlyZodLocales(): Plugin {
  const namespace = 'zod-english-locales';
  return {
    name: namespace,
    setup(esbuild) {
      esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace }
          : undefined,
      );
      esbuild.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(args.path)};`,
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/**
 * Bundles every function in ONE esbuild run (ESM, minified, linked source maps, Node 24), then
 * copies into each function's folder the unbundled packages it imports that no layer provides.
 * `#shared/...` imports resolve through package.json "imports", as they do under Node.
 */
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

  const result = await build({
    absWorkingDir: rootDir,
    entryPoints: names.map((name) => ({
      in: handlerPath(rootDir, name),
      out: `${bundleFolder(name)}/index`,
    })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
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
    plugins: [requireAtRunTime([...Object.keys(unbundled), ...requiredBuiltins]), englishOnlyZodLocales()],
  });

  const nameOfEntry = new Map(
    names.map((name) => [relative(rootDir, handlerPath(rootDir, name)).replaceAll('\\', '/'), name]),
  );
  const bundles = new Map<string, FunctionBundle>();
  for (const output of Object.values(result.metafile.outputs)) {
    const name = output.entryPoint && nameOfEntry.get(output.entryPoint.replaceAll('\\', '/'));
    if (!name) continue;
    const dir = join(outDir, bundleFolder(name));
    const imported = new Set(
      output.imports.filter((entry) => entry.external).map((entry) => packageOf(entry.path)),
    );
    const layers = new Set<LayerName>();
    const ownPackages: string[] = [];
    for (const pkg of imported) {
      const where = unbundled[pkg];
      if (!where) continue;
      if (where.from === 'layer') layers.add(where.layer);
      else ownPackages.push(pkg);
    }
    if (Object.keys(output.inputs).some((input) => input.replaceAll('\\', '/').endsWith(ffmpegMarker))) {
      layers.add('ffmpeg');
    }
    if (Object.keys(output.inputs).some((input) => input.replaceAll('\\', '/').endsWith(browserMarker))) {
      for (const name of browserLayerNames) layers.add(name);
    }
    if (ownPackages.length > 0) copyPackages(ownPackages, rootDir, join(dir, 'node_modules'));
    bundles.set(name, { name, dir, layers: [...layers].sort(), sizeBytes: directorySize(dir) });
  }
  const unbuilt = names.filter((name) => !bundles.has(name));
  if (unbuilt.length > 0) throw new Error(`esbuild produced no bundle for ${unbuilt.join(', ')}`);
  return bundles;
}
