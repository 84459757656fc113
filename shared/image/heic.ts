import { HttpError } from '#shared/http/errors.ts';
import type { Pixels } from '#shared/image/bmp.ts';

const damaged = (cause: unknown) =>
  new HttpError('invalid_source_file', 'The HEIC could not be decoded: it is damaged or incomplete.', {
    cause,
  });

/**
 * Decodes one top-level image of a HEIC with libheif (libde265) compiled to WebAssembly. The
 * container is parsed first; `check` sees the image's size and may refuse it before any pixel is
 * decoded. The pixels are RGBA (opaque images get alpha 255). libheif applies the container's rotation and mirroring, so the pixels come out upright.
 */
export async function decodeHeicImage(
  bytes: Buffer,
  index: number,
  check: (size: { width: number; height: number }) => void,
): Promise<Pixels> {
  // libheif (about 2 MB of WebAssembly) is loaded on the first HEIC, not at every cold start.
  const { default: decodeHeic } = await import('heic-decode');
  let images: Awaited<ReturnType<typeof decodeHeic.all>>;
  try {
    images = await decodeHeic.all({ buffer: bytes });
  } catch (error) {
    throw damaged(error);
  }
  try {
    const image = images[index] ?? images[0];
    if (!image) throw damaged(new Error('no image'));
    check(image);
    let decoded: Awaited<ReturnType<typeof image.decode>>;
    try {
      decoded = await image.decode();
    } catch (error) {
      throw damaged(error);
    }
    const rgba = Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
    return { data: rgba, width: decoded.width, height: decoded.height, channels: 4 };
  } finally {
    images.dispose();
  }
}
