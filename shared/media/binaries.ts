import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { config } from '#shared/config.ts';

/** Where the Lambda layer puts the static binaries. */
const layerDir = '/opt/bin';

/**
 * Resolves a binary once per container: the environment wins, then the layer, then the npm installer
 * packages (local development and tests). The installer packages are required lazily through
 * createRequire so that bundling for Lambda neither follows nor needs them.
 */
function resolveBinary(name: 'ffmpeg' | 'ffprobe', fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const inLayer = `${layerDir}/${name}`;
  if (existsSync(inLayer)) return inLayer;
  const require = createRequire(import.meta.url);
  const installer = require(`@${name}-installer/${name}`) as { path: string };
  return installer.path;
}

export const ffmpegPath: string = resolveBinary('ffmpeg', config.FFMPEG_PATH);
export const ffprobePath: string = resolveBinary('ffprobe', config.FFPROBE_PATH);
