import { engineUnavailable } from '#shared/engines.ts';
import { ApiError } from '#shared/errors.ts';
import { limitError } from '#shared/media/limit-errors.ts';
import { formatSeconds } from '#shared/media/limits.ts';
import { MediaTimeoutError, MediaToolError } from '#shared/media/run.ts';
import { mapNativeError } from '#shared/native-errors.ts';

/**
 * What a failed run of ffprobe or ffmpeg answers. How the process ended decides who failed, before
 * any line of its log is read (run.ts records it):
 *
 * - The tool could not do its work: the binary is missing or not executable, a signal this code
 *   did not send ended it, or it printed no report. That is ours and stays a 500, whatever its log
 *   says.
 * - The tool ran and refused. ffprobe is given nothing but the downloaded file and fixed options,
 *   so when it refuses, the file cannot be read: the caller's bad input, 400 invalid_source_file,
 *   explained by the native-error table when a rule knows the message. The one exception is a file
 *   that is not there at all: our workspace failed, not the caller's bytes. A report too large to
 *   read is the file's doing too: only megabytes of tags make ffprobe print that much.
 *   ffmpeg also reads our options and writes our output, and only runs on files ffprobe accepted:
 *   its refusal is bad input only where a rule of the table recognises an error about the input
 *   (a stream whose codec or parameters cannot be decoded). Any other stays a 500, so that a wrong
 *   option or a broken encoder is never passed off as the caller's fault.
 * - The run passed its deadline: what that means depends on what it was doing (its stage).
 */

/** What a run was doing; it sets the deadline, and what passing it says about the request. */
export type MediaStage = 'probe' | 'frame' | 'conversion';

const unreadable = 'The source could not be read as audio or video: its header is damaged or incomplete.';

/** ffprobe could not open the file it was given: our workspace failed, not the caller's bytes. */
const fileMissing = /file:.*: No such file or directory$/m;

/**
 * Reading a header takes well under a second for any real file, whatever its length, so a probe
 * that runs out of time met a file built to keep it busy. One frame can take longer when key
 * frames lie far apart, and an earlier time is cheaper. A conversion's time grows with the media
 * and the work asked for: the closest code is 413 media_too_long (more media than one request
 * converts), but this limit is the same on every tier, so the message says so instead of naming a
 * tier.
 */
function deadlineError(stage: MediaStage, error: MediaTimeoutError): ApiError {
  const limit = formatSeconds(error.timeoutMs / 1000);
  switch (stage) {
    case 'probe':
      return new ApiError(
        'invalid_source_file',
        `The source's header could not be read within ${limit}: its structure is damaged or far larger than audio or video needs.`,
        { cause: error },
      );
    case 'frame':
      return new ApiError(
        'invalid_source_file',
        `No frame could be decoded within ${limit}: the video is damaged, or its key frames lie so far apart that reaching this time costs too much; try an earlier time (at).`,
        { cause: error },
      );
    case 'conversion':
      return new ApiError(
        'media_too_long',
        `The conversion did not finish within ${limit}, the processing time of one conversion on every tier; convert a shorter part of the source (start, duration) or ask for less work, such as a smaller size.`,
        { cause: error },
      );
  }
}

/** Rethrows a failed run as the answer the client gets, or as it is when it is ours (a 500). */
export function publicMediaError(error: unknown, stage: MediaStage): never {
  if (error instanceof MediaTimeoutError) throw deadlineError(stage, error);
  if (!(error instanceof MediaToolError)) throw error;
  if (error.outcome === 'not-started') throw engineUnavailable('ffmpeg', error);
  if (error.outcome === 'report-too-large') {
    throw new ApiError(
      'invalid_source_file',
      'The source carries more metadata (tags) than is read here (8 MB); remove it and send the file again.',
      { cause: error },
    );
  }
  const overLimit = limitError(error, stage);
  if (overLimit) throw overLimit;
  if (error.outcome !== 'refused') throw error;
  if (error.tool === 'ffprobe' && fileMissing.test(error.message)) throw error;
  try {
    mapNativeError('ffmpeg', error);
  } catch (mapped) {
    if (mapped instanceof ApiError || error.tool === 'ffmpeg') throw mapped;
  }
  throw new ApiError('invalid_source_file', unreadable, { cause: error });
}
