import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type BuiltLayer, buildLayer, isMain, type LayerRecipe, megabytes } from '../layer.ts';
import { buildInputs, staticQpdf, targetDebianVersion } from './static-build.ts';

/** Where compiles are kept between layer builds, as for ffmpeg (layers/ffmpeg/build.ts). */
const cacheRoot = process.env.LAYER_BUILD_CACHE ?? join(homedir(), '.cache', 'file-conversion-api', 'layers');

/**
 * A static qpdf under bin/, i.e. /opt/bin/qpdf in Lambda (the stack sets QPDF_PATH to it), compiled
 * from Debian 12's qpdf source package (static-build.ts), the same release as Debian's own qpdf
 * package, which the tests use to make encrypted fixtures and to read answers back. The tests run
 * the service on this build. Read and run bits for everyone: Lambda runs code as an unprivileged user.
 */
export const qpdfLayer: LayerRecipe = {
  name: 'qpdf',
  inputs: () => ({ recipe: '1', ...buildInputs(targetDebianVersion(join(cacheRoot, 'qpdf-build'))) }),
  populate(dir) {
    const built = staticQpdf(cacheRoot);
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const target = join(bin, 'qpdf');
    copyFileSync(built.qpdf, target);
    chmodSync(target, 0o755);
  },
};

export const buildQpdfLayer = (outRoot?: string): BuiltLayer => buildLayer(qpdfLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildQpdfLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
