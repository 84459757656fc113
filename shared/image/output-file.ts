import { contentTypeOf, type ImageInputFormat, type ImageOutputFormat } from '#shared/image/formats.ts';
import type { Workspace } from '#shared/workspace.ts';

/** A sniffed image source on disk. */
export interface ImageSource {
  path: string;
  format: ImageInputFormat;
}

/** A written image: where it is, its format (also the file extension) and its content type. */
export interface ImageFile {
  path: string;
  format: ImageOutputFormat | ImageInputFormat;
  contentType: string;
}

/** A fresh output path in the workspace for the target format. */
export async function outputPath(
  workspace: Workspace,
  format: ImageOutputFormat,
  name = 'output',
): Promise<string> {
  return workspace.file(`${name}.${format}`);
}

export const imageFile = (path: string, format: ImageOutputFormat): ImageFile => ({
  path,
  format,
  contentType: contentTypeOf[format],
});
