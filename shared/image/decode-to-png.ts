import { randomUUID } from 'node:crypto';
import { ApiError } from '#shared/errors.ts';
import { openImage } from '#shared/image/decode.ts';
import { isImageInputFormat } from '#shared/image/formats.ts';
import { writeOpened } from '#shared/image/render-failure.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import type { Workspace } from '#shared/workspace.ts';

/**
 * Any image input format as an 8-bit sRGB PNG in the workspace: upright (EXIF orientation
 * applied), the first frame of an animation, alpha kept. The pixel limit is checked before
 * decoding; a GIF with a damaged frame is read leniently (render-failure.ts). A stable entry point
 * for other suites (image-to-pdf).
 */
export async function decodeToPng(
  path: string,
  format: SourceFormat,
  workspace: Workspace,
): Promise<{ path: string; width: number; height: number }> {
  if (!isImageInputFormat(format)) {
    throw new ApiError('unsupported_input_format', `A ${format} file is not an image.`);
  }
  const opened = await openImage(path, format);
  const output = await workspace.file(`decoded-${randomUUID()}.png`);
  const { result: info } = await writeOpened(opened, (image) =>
    image.image.toColourspace('srgb').png({ compressionLevel: 1 }).toFile(output),
  );
  return { path: output, width: info.width, height: info.height };
}
