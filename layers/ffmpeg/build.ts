import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
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

/** Where the binaries come from: the static linux-x64 builds shipped by the npm installer packages. */
const binaries = [
  { name: 'ffmpeg', from: '@ffmpeg-installer/linux-x64' },
  { name: 'ffprobe', from: '@ffprobe-installer/linux-x64' },
] as const;

/**
 * Static ffmpeg and ffprobe under bin/, i.e. /opt/bin in Lambda (the stack sets FFMPEG_PATH and
 * FFPROBE_PATH to them). Lambda runs code as an unprivileged user, so both get read and run bits
 * for everyone, whatever the npm tarball had.
 */
export const ffmpegLayer: LayerRecipe = {
  name: 'ffmpeg',
  inputs: () => ({
    recipe: '1',
    ...Object.fromEntries(binaries.map(({ from }) => [from, installedVersion(from)])),
  }),
  populate(dir) {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const { name, from } of binaries) {
      const target = join(bin, name);
      copyFileSync(join(projectRoot, 'node_modules', from, name), target);
      chmodSync(target, 0o755);
    }
  },
};

export const buildFfmpegLayer = (outRoot?: string): BuiltLayer => buildLayer(ffmpegLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildFfmpegLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
