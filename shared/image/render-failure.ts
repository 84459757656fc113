import { ApiError } from '#shared/errors.ts';
import type { OpenedImage } from '#shared/image/decode.ts';
import { damagedImage, mapNativeError } from '#shared/native-errors.ts';

/**
 * Maps a failure of a libvips pipeline over a source image. libvips keeps one error buffer for the
 * whole process and sharp clears it after each failed pipeline, so when two pipelines fail at the
 * same moment one of them can read no message at all ("Unknown error") or the other's. Whether the
 * source is at fault is then not read from the words but decided by decoding the source again on
 * its own (`decodeSource`, which throws when it cannot): a source that cannot be decoded is a 400
 * however the engine worded it; when the source decodes, the failure is ours and stays a 500.
 */
export async function mapRenderFailure(
  error: unknown,
  decodeSource?: () => Promise<unknown>,
): Promise<never> {
  try {
    mapNativeError('sharp', error);
  } catch (mapped) {
    if (mapped instanceof ApiError || !decodeSource) throw mapped;
  }
  const sourceDecodes = await decodeSource().then(
    () => true,
    () => false,
  );
  if (sourceDecodes) throw error;
  throw new ApiError('invalid_source_file', damagedImage, { cause: error });
}

/**
 * Runs `write` over an opened image, failures mapped as above. A GIF whose source libvips cannot
 * decode (libnsgif stops at a frame's first bad LZW code, "gifload: Invalid frame data", and takes
 * every later frame with it) is opened again leniently and written from there, keeping its frames.
 * The retry follows the mapped failure, not the words, for the words may be lost (see above); a GIF
 * that even the lenient reader cannot read stays a 400. Answers the image that was written, with
 * what `write` answered.
 */
export async function writeOpened<T>(
  opened: OpenedImage,
  write: (image: OpenedImage) => Promise<T>,
): Promise<{ written: OpenedImage; result: T }> {
  try {
    return { written: opened, result: await write(opened) };
  } catch (error) {
    const failure = await mapRenderFailure(error, opened.decodeSource).catch((mapped: unknown) => mapped);
    const damaged = failure instanceof ApiError && failure.code === 'invalid_source_file';
    if (!damaged || !opened.reopenLeniently) throw failure;
  }
  const lenient = await opened.reopenLeniently();
  try {
    return { written: lenient, result: await write(lenient) };
  } catch (error) {
    return mapRenderFailure(error);
  }
}
