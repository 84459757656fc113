import { ApiError } from '#shared/errors.ts';
import type { MediaInfo, StreamInfo } from '#shared/media/probe.ts';

/**
 * The largest video frame read or written, on either side (contract: Resource bounds). A decoded
 * frame costs memory in proportion to its pixels and every filter and encoder holds several, so a
 * few kilobytes of MJPEG that claim 16000 × 16000 would ask for gigabytes. 8192 covers 8K video
 * (7680 × 4320) and its portrait form.
 *
 * Three guards, each for what the one before cannot see:
 * 1. the probe's sizes, before any work (`assertSourceFrames`);
 * 2. the decoders' own limit (`-max_pixels`, run.ts), for a stream whose frames change size after
 *    its header;
 * 3. the output size, both sides, whatever side was asked for (`boundedOutputSize`).
 */
export const maxFrameSide = 8192;

const side = `${maxFrameSide} pixels`;

/**
 * 400 invalid_source_file when a video stream's frames are wider or taller than the bound, or of no
 * size at all: the probe's decoders refuse frames over the bound (`-max_pixels`) and then report
 * the stream without a size, as they do for frames too damaged to read.
 */
export function assertSourceFrames(info: MediaInfo): void {
  for (const stream of info.streams) {
    if (stream.type !== 'video') continue;
    const { width = 0, height = 0 } = stream;
    if (width === 0 || height === 0) {
      throw new ApiError(
        'invalid_source_file',
        `The size of the source's video frames could not be read: they are damaged, or larger than ${maxFrameSide} × ${maxFrameSide} pixels, the most that is read.`,
      );
    }
    if (width > maxFrameSide || height > maxFrameSide) {
      throw new ApiError(
        'invalid_source_file',
        `The source's video frames are ${width} × ${height} pixels; at most ${maxFrameSide} × ${maxFrameSide} (${side} on either side) are read.`,
      );
    }
  }
}

/**
 * An output size as the converters compute it (aspect kept), checked against the bound on both
 * sides. A size the caller asked for that pushes the other side over the bound is their option's
 * doing: 400 validation_failed, naming the largest value that fits. A size that comes from the
 * source alone (a pixel aspect that stretches a frame past the bound) is scaled down to fit, aspect
 * kept, since the caller asked for nothing to refuse.
 */
export function boundedOutputSize(
  size: { width: number; height: number },
  asked: { width?: number | undefined; height?: number | undefined },
): { width: number; height: number } {
  if (size.width <= maxFrameSide && size.height <= maxFrameSide) return size;
  const askedField = asked.width !== undefined ? 'width' : asked.height !== undefined ? 'height' : undefined;
  if (askedField !== undefined) {
    const other = askedField === 'width' ? 'height' : 'width';
    const scale = maxFrameSide / Math.max(size.width, size.height);
    const largest = Math.floor((asked[askedField] ?? 0) * scale);
    throw new ApiError(
      'validation_failed',
      `${askedField}: with the aspect ratio kept the output would be ${size.width} × ${size.height} pixels, over the limit of ${side} on either side (the ${other} too); ask for a ${askedField} of at most ${largest}.`,
    );
  }
  const scale = maxFrameSide / Math.max(size.width, size.height);
  const evenDown = (value: number) => Math.max(2, 2 * Math.floor((value * scale) / 2));
  return { width: evenDown(size.width), height: evenDown(size.height) };
}

/**
 * A thumbnail's size: the asked width with the frame's aspect kept (frames reach the filters
 * turned upright), checked on both sides; without a width it is the frame itself, already bounded.
 */
export function assertThumbnailWidth(
  stream: Pick<StreamInfo, 'width' | 'height' | 'rotation'>,
  width: number | undefined,
): void {
  if (width === undefined || !stream.width || !stream.height) return;
  const turned = stream.rotation === 90 || stream.rotation === 270;
  const aspect = turned ? stream.height / stream.width : stream.width / stream.height;
  boundedOutputSize({ width, height: 2 * Math.round(width / aspect / 2) }, { width });
}
