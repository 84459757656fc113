import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type BuiltLayer, buildLayer, isMain, type LayerRecipe, megabytes } from '../layer.ts';
import { buildInputs, staticFfmpeg, targetDebianVersion } from './static-build.ts';

/**
 * Where compiles are kept between layer builds: outside the checkout, so that a fresh clone on the
 * same machine (CI) reuses them; the compile takes many minutes. LAYER_BUILD_CACHE chooses another.
 */
const cacheRoot = process.env.LAYER_BUILD_CACHE ?? join(homedir(), '.cache', 'file-conversion-api', 'layers');

/**
 * Static ffmpeg and ffprobe under bin/, i.e. /opt/bin in Lambda (the stack sets FFMPEG_PATH and
 * FFPROBE_PATH to them), compiled from Debian 12's ffmpeg source package (static-build.ts): the
 * release Debian's security team maintains, the same one as Debian's own ffmpeg package, which the
 * tests use to make fixtures. The tests run the service on this build. Lambda runs code as an
 * unprivileged user, so both get read and run bits for everyone.
 */
export const ffmpegLayer: LayerRecipe = {
  name: 'ffmpeg',
  inputs: () => ({ recipe: '2', ...buildInputs(targetDebianVersion(join(cacheRoot, 'ffmpeg-build'))) }),
  populate(dir) {
    const built = staticFfmpeg(cacheRoot);
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const name of ['ffmpeg', 'ffprobe']) {
      const target = join(bin, name);
      copyFileSync(join(built.bin, name), target);
      chmodSync(target, 0o755);
    }
  },
};

export const buildFfmpegLayer = (outRoot?: string): BuiltLayer => buildLayer(ffmpegLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildFfmpegLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
