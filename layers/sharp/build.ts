import { join } from 'node:path';
import { copyPackages } from '../copy-packages.ts';
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
 * sharp with its prebuilt libvips for linux-x64 (glibc), under nodejs/node_modules where the
 * Node.js runtime looks for layer packages. Functions keep sharp out of their bundles and load it
 * from here.
 */
export const sharpLayer: LayerRecipe = {
  name: 'sharp',
  inputs: () => ({
    recipe: '1',
    sharp: installedVersion('sharp'),
    '@img/sharp-linux-x64': installedVersion('@img/sharp-linux-x64'),
    '@img/sharp-libvips-linux-x64': installedVersion('@img/sharp-libvips-linux-x64'),
  }),
  populate(dir) {
    const copied = copyPackages(['sharp'], projectRoot, join(dir, 'nodejs', 'node_modules'));
    for (const required of ['@img/sharp-linux-x64', '@img/sharp-libvips-linux-x64']) {
      if (!copied.some((entry) => entry.name === required)) {
        throw new Error(`${required} is not installed: sharp would have no linux-x64 binary in the layer`);
      }
    }
  },
};

export const buildSharpLayer = (outRoot?: string): BuiltLayer => buildLayer(sharpLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildSharpLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
