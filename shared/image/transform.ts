import type { Rgba } from '#shared/image/colour.ts';
import type { OpenedImage } from '#shared/image/decode.ts';
import { type RequestedFormat, writableFormat } from '#shared/image/formats.ts';
import { type RawFrames, toRawFrames } from '#shared/image/frames.ts';
import { type ImageFile, type ImageSource, imageFile, outputPath } from '#shared/image/output-file.ts';
import { renderImage } from '#shared/image/render.ts';
import { defaultTarget } from '#shared/image/resize.ts';
import type { TransformOperation } from '#shared/image/tools-schema.ts';
import { applyOperation } from '#shared/image/transform-ops.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface TransformOptions {
  operations: readonly TransformOperation[];
  outputFormat?: RequestedFormat | undefined;
  quality?: number | undefined;
}

/** Runs the operations in order over the decoded pixels of an opened image (every kept frame). */
export async function runOperations(
  opened: OpenedImage,
  operations: readonly TransformOperation[],
): Promise<RawFrames> {
  let raw = await toRawFrames(opened.image, opened.frames);
  for (const [index, step] of operations.entries()) {
    raw = await applyOperation(raw, step, `operations.${index}`);
  }
  return raw;
}

/** The background a target without alpha flattens onto: the last colour an operation named. */
function lastBackground(operations: readonly TransformOperation[]): Rgba | undefined {
  let colour: Rgba | undefined;
  for (const step of operations) {
    if ('background' in step && step.background) colour = step.background;
  }
  return colour;
}

/**
 * Decodes an image once (upright), applies up to ten operations in order and encodes it once, in
 * its own format unless another is asked. Animations keep their frames where the target holds them.
 */
export async function transformImage(
  source: ImageSource,
  options: TransformOptions,
  workspace: Workspace,
): Promise<ImageFile> {
  const target = options.outputFormat ? writableFormat(options.outputFormat) : defaultTarget(source.format);
  const path = await outputPath(workspace, target);
  await renderImage(
    source,
    {
      target,
      animated: true,
      background: lastBackground(options.operations),
      quality: options.quality,
      effort: 'balanced',
      keepMetadata: false,
      iconSizes: 'fit',
      svgMode: 'trace',
      edit: (opened) => runOperations(opened, options.operations),
    },
    path,
  );
  return imageFile(path, target);
}
