import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BuiltLayer,
  buildLayer,
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

export const buildChromiumLayer = (outRoot?: string): BuiltLayer => buildLayer(chromiumLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildChromiumLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
