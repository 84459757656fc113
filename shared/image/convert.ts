import type { Rgba } from '#shared/image/colour.ts';
import { type RequestedFormat, writableFormat } from '#shared/image/formats.ts';
import type { Fit } from '#shared/image/limits.ts';
import { type ImageFile, type ImageSource, imageFile, outputPath } from '#shared/image/output-file.ts';
import { renderImage } from '#shared/image/render.ts';
import type { SvgMode } from '#shared/image/svg-output.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface ConvertOptions {
  outputFormat: RequestedFormat;
  quality?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
  fit: Fit;
  background?: Rgba | undefined;
  stripMetadata: boolean;
  animated: boolean;
  icoSizes: readonly number[];
  svgMode: SvgMode;
}

/**
 * Converts an image to another format, optionally resized (to exactly the size asked when
 * enlarging too). Frames of an animation are kept for gif and webp targets when `animated` is set;
 * every other target takes the first frame.
 */
export async function convertImage(
  source: ImageSource,
  options: ConvertOptions,
  workspace: Workspace,
): Promise<ImageFile> {
  const target = writableFormat(options.outputFormat);
  const path = await outputPath(workspace, target);
  await renderImage(
    source,
    {
      target,
      resize: { width: options.width, height: options.height, fit: options.fit, withoutEnlargement: false },
      animated: options.animated,
      background: options.background,
      quality: options.quality,
      effort: 'balanced',
      keepMetadata: !options.stripMetadata,
      iconSizes: options.icoSizes,
      svgMode: options.svgMode,
    },
    path,
  );
  return imageFile(path, target);
}
