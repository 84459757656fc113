import type { Rgba } from '#shared/image/colour.ts';
import {
  type ImageInputFormat,
  type ImageOutputFormat,
  type RequestedFormat,
  writableFormat,
} from '#shared/image/formats.ts';
import type { Fit, Position } from '#shared/image/limits.ts';
import { type ImageFile, type ImageSource, imageFile, outputPath } from '#shared/image/output-file.ts';
import { renderImage } from '#shared/image/render.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface ResizeOptions {
  width?: number | undefined;
  height?: number | undefined;
  fit: Fit;
  position: Position;
  withoutEnlargement: boolean;
  background?: Rgba | undefined;
  outputFormat?: RequestedFormat | undefined;
}

/**
 * The format an answer keeps when none is asked: the source's own, except HEIC (no encoder) and
 * SVG (the result of resizing is a raster), which become PNG.
 */
export function defaultTarget(format: ImageInputFormat): ImageOutputFormat {
  return format === 'heic' || format === 'svg' ? 'png' : format;
}

/** Resizes an image (upright first), in its own format unless another is asked. */
export async function resizeImage(
  source: ImageSource,
  options: ResizeOptions,
  workspace: Workspace,
): Promise<ImageFile> {
  const target = options.outputFormat ? writableFormat(options.outputFormat) : defaultTarget(source.format);
  const path = await outputPath(workspace, target);
  await renderImage(
    source,
    {
      target,
      resize: options,
      animated: true,
      background: options.background,
      effort: 'balanced',
      keepMetadata: false,
      iconSizes: 'fit',
      svgMode: 'trace',
    },
    path,
  );
  return imageFile(path, target);
}
