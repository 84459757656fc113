import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BuiltLayer,
  buildLayer,
  defaultLayersDir,
  installedVersion,
  isMain,
  type LayerRecipe,
  megabytes,
  projectRoot,
} from '../layer.ts';

/**
 * The packed Chromium of @sparticuz/chromium: its brotli-compressed browser, libraries and
 * SwiftShader, under chromium/ (so /opt/chromium on Lambda), unpacked to /tmp on a function's first
 * render. The package's JavaScript is bundled into the functions, which name this folder through
 * CHROMIUM_PACK_DIR. Its major follows puppeteer-core's Chromium (package.json pins both).
 */
export const lambdaChromiumDir = '/opt/chromium';

const packedFiles = ['chromium.br', 'al2023.tar.br', 'fonts.tar.br', 'swiftshader.tar.br'];

export const chromiumLayer: LayerRecipe = {
  name: 'chromium',
  inputs: () => ({ recipe: '1', '@sparticuz/chromium': installedVersion('@sparticuz/chromium') }),
  populate(dir) {
    const from = join(projectRoot, 'node_modules', '@sparticuz', 'chromium', 'bin');
    const present = new Set(readdirSync(from));
    const target = join(dir, 'chromium');
    mkdirSync(target, { recursive: true });
    for (const file of packedFiles) {
      if (!present.has(file)) throw new Error(`@sparticuz/chromium has no bin/${file}`);
      copyFileSync(join(from, file), join(target, file));
    }
  },
};

/**
 * The packed Chromium unpacked once on this machine, for the local gateway and the tests: each of
 * the gateway's workers has a /tmp of its own, as each Lambda instance has, and would otherwise
 * unpack its own 200 MB copy. The package unpacks into the temporary folder it is given.
 */
export const localChromium = (outRoot = defaultLayersDir) => join(outRoot, 'chromium-unpacked', 'chromium');

function unpackLocally(outRoot: string): void {
  const executable = localChromium(outRoot);
  if (existsSync(executable)) return;
  const dir = join(outRoot, 'chromium-unpacked');
  mkdirSync(dir, { recursive: true });
  const unpack = "import('@sparticuz/chromium').then((packed) => packed.default.executablePath())";
  execFileSync(process.execPath, ['--input-type=module', '-e', unpack], {
    cwd: projectRoot,
    env: { ...process.env, TMPDIR: dir },
    stdio: 'inherit',
  });
  if (!existsSync(executable)) throw new Error(`unpacking Chromium left no ${executable}`);
}

export function buildChromiumLayer(outRoot = defaultLayersDir): BuiltLayer {
  const layer = buildLayer(chromiumLayer, outRoot);
  if (layer.rebuilt) execFileSync('rm', ['-rf', join(outRoot, 'chromium-unpacked')]);
  unpackLocally(outRoot);
  return layer;
}

if (isMain(import.meta.url)) {
  const layer = buildChromiumLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
  console.log(`unpacked for this machine: ${localChromium(process.argv[2])}`);
}
