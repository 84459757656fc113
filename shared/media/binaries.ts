import { existsSync } from 'node:fs';
import { config } from '#shared/config.ts';

/** Where the Lambda layer puts the static binaries (layers/ffmpeg). */
const layerDir = '/opt/bin';

/**
 * Where Debian's own ffmpeg package puts them: the same release, from the same source package, as
 * the layer's static build, for the local gateway (`npm run system-tools` installs it).
 */
const systemDir = '/usr/bin';

/**
 * Resolves a binary once per container: the environment wins, then the layer, then Debian's
 * package. There is no other fallback (no unmaintained build is run): without one, the layer's
 * path is kept, a run finds nothing there, and the route answers 503 engine_unavailable naming
 * ffmpeg, while the function itself still starts.
 */
function resolveBinary(name: 'ffmpeg' | 'ffprobe', fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  for (const dir of [layerDir, systemDir]) {
    if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return `${layerDir}/${name}`;
}

export const ffmpegPath: string = resolveBinary('ffmpeg', config.FFMPEG_PATH);
export const ffprobePath: string = resolveBinary('ffprobe', config.FFPROBE_PATH);
