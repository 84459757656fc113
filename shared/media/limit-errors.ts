import { ApiError } from '#shared/errors.ts';
import type { MediaStage } from '#shared/media/failures.ts';
import { maxFrameSide } from '#shared/media/frame-bounds.ts';
import { formatSeconds } from '#shared/media/limits.ts';
import type { MediaToolError } from '#shared/media/run.ts';
import { describeBytes } from '#shared/process-limits.ts';

/**
 * The answer for a tool stopped by one of its bounds (process-limits.ts, frame-bounds.ts). The
 * limits are sized from the function, so a source that reaches one asks for more than any request
 * is given: the caller's input, a 4xx naming the limit. Undefined for any other ending.
 */
export function limitError(error: MediaToolError, stage: MediaStage): ApiError | undefined {
  const { limits } = error;
  switch (error.outcome) {
    case 'over-frame-limit': {
      // The decoder's own words name the size: `Picture size 16000x16000 exceeds …`.
      const size = /Picture size (\d+)x(\d+) exceeds/.exec(error.message);
      const frames = size
        ? `The source's video frames are ${size[1]} × ${size[2]} pixels; at most`
        : 'A video frame of the source is larger than';
      return new ApiError(
        'invalid_source_file',
        `${frames} ${maxFrameSide} × ${maxFrameSide} pixels (${maxFrameSide} on either side) are read.`,
        { cause: error },
      );
    }
    case 'over-memory-limit':
      return new ApiError(
        'invalid_source_file',
        `Reading the source needs more memory than the ${limits ? describeBytes(limits.dataBytes) : 'limited amount'} one media process is given: its frames or streams are larger than is handled here.`,
        { cause: error },
      );
    case 'over-cpu-limit': {
      const cpu = limits ? formatSeconds(limits.cpuSeconds) : 'limited time';
      return stage === 'conversion'
        ? new ApiError(
            'media_too_long',
            `The conversion used up its ${cpu} of processing (CPU) time, the limit of one conversion on every tier; convert a shorter part of the source (start, duration) or ask for less work, such as a smaller size.`,
            { cause: error },
          )
        : new ApiError(
            'invalid_source_file',
            `Reading the source used up its ${cpu} of processing (CPU) time: its structure is damaged or far costlier than audio or video needs.`,
            { cause: error },
          );
    }
    default:
      return undefined;
  }
}
