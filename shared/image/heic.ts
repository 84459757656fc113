import type { heif_image, heif_image_handle, MainModule } from 'libheif-js/libheif-wasm/libheif.js';
import { ApiError } from '#shared/errors.ts';
import type { Pixels } from '#shared/image/bmp.ts';
import { log } from '#shared/log.ts';

const damaged = (cause: unknown) =>
  new ApiError('invalid_source_file', 'The HEIC could not be decoded: it is damaged or incomplete.', {
    cause,
  });

/**
 * libheif (about 2 MB of WebAssembly) is instantiated on the first HEIC, not at every cold start,
 * and shared by the requests after it. What its C code prints goes to the structured log instead of
 * stdout and stderr; and its own C API is used rather than libheif-js's HeifDecoder wrapper, which
 * reports every failure with console.log.
 */
let library: Promise<MainModule> | undefined;

function loadLibheif(): Promise<MainModule> {
  library ??= import('libheif-js/libheif-wasm/libheif-bundle.js')
    .then(({ default: instantiate }) => {
      const print = (text: string) => log('debug', 'libheif output', { text });
      return instantiate({ print, printErr: print });
    })
    .catch((error: unknown) => {
      library = undefined;
      throw error;
    });
  return library;
}

/** libheif answers a failure as an error object, with a code; handles and images have none. */
const failure = (result: unknown): string | undefined => {
  if (!result) return 'nothing returned';
  if (typeof result === 'object' && 'code' in result && result.code !== undefined) {
    return 'message' in result ? String(result.message) : 'failed';
  }
  return undefined;
};

interface DecodedImage {
  image: heif_image;
  channels: Array<{ id: unknown; width: number; height: number; stride: number; data: Uint8Array }>;
}

/**
 * Decodes one top-level image of a HEIC with libheif (libde265) compiled to WebAssembly. The
 * container is parsed first; `check` sees the image's size and may refuse it before any pixel is
 * decoded. The pixels are RGBA (opaque images get alpha 255). libheif applies the container's
 * rotation and mirroring, so the pixels come out upright.
 */
export async function decodeHeicImage(
  bytes: Buffer,
  index: number,
  check: (size: { width: number; height: number }) => void,
): Promise<Pixels> {
  const heif = await loadLibheif();
  const context = heif.heif_context_alloc();
  try {
    const read = heif.heif_context_read_from_memory(context, bytes);
    if (read.code !== heif.heif_error_code.heif_error_Ok) throw damaged(new Error(String(read.message)));
    const ids: unknown = heif.heif_js_context_get_list_of_top_level_image_IDs(context);
    if (!Array.isArray(ids) || ids.length === 0) throw damaged(new Error('no top-level image'));
    const handle: unknown = heif.heif_js_context_get_image_handle(context, ids[index] ?? ids[0]);
    const refused = failure(handle);
    if (refused) throw damaged(new Error(refused));
    try {
      return await decodeImage(heif, handle as heif_image_handle, check);
    } finally {
      heif.heif_image_handle_release(handle as heif_image_handle);
    }
  } catch (error) {
    // After a WebAssembly trap the module's memory may be inconsistent: the next HEIC gets a new one.
    if (error instanceof WebAssembly.RuntimeError) library = undefined;
    throw error;
  } finally {
    heif.heif_context_free(context);
  }
}

async function decodeImage(
  heif: MainModule,
  handle: heif_image_handle,
  check: (size: { width: number; height: number }) => void,
): Promise<Pixels> {
  check({
    width: heif.heif_image_handle_get_width(handle),
    height: heif.heif_image_handle_get_height(handle),
  });
  const decoded: unknown = await heif.heif_js_decode_image2(
    handle,
    heif.heif_colorspace.heif_colorspace_RGB,
    heif.heif_chroma.heif_chroma_interleaved_RGBA,
  );
  const refused = failure(decoded);
  if (refused) throw damaged(new Error(refused));
  const { image, channels } = decoded as DecodedImage;
  try {
    const plane = channels.find((channel) => channel.id === heif.heif_channel.heif_channel_interleaved);
    if (!plane) throw damaged(new Error('no interleaved RGBA plane'));
    // Rows may be padded; the pixels are copied out of the WebAssembly memory, row by row.
    const { width, height, stride, data } = plane;
    const row = width * 4;
    const rgba = Buffer.alloc(row * height);
    for (let y = 0; y < height; y += 1) rgba.set(data.subarray(y * stride, y * stride + row), y * row);
    return { data: rgba, width, height, channels: 4 };
  } finally {
    heif.heif_image_release(image);
  }
}
