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
 * Runs `write` over an opened image, failures mapped as above. Answers the image that was written,
 * with what `write` answered.
 */
export async function writeOpened<T>(
  opened: OpenedImage,
  write: (image: OpenedImage) => Promise<T>,
): Promise<{ written: OpenedImage; result: T }> {
  try {
    return { written: opened, result: await write(opened) };
  } catch (error) {
    return mapRenderFailure(error, opened.decodeSource);
  }
}
