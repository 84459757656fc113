import { isMediaSourceFormat, mediaSourceFormats } from '#shared/media/formats.ts';
import { identifyMediaFormat } from '#shared/media/identify.ts';
import type { MediaContext, MediaInput } from '#shared/media/job.ts';
import { downloadSource } from '#shared/source/download.ts';
import type { SourceRequest } from '#shared/source/request.ts';

/**
 * Downloads an audio or video source for a media route, its format sniffed and checked; a file the
 * sniffer cannot name is named by ffprobe among the allowed demuxers (identify.ts).
 */
export async function downloadMedia(
  url: string,
  { caller, limits, workspace, signal, deadline }: SourceRequest,
): Promise<MediaInput & { sizeBytes: number }> {
  const source = await downloadSource(url, {
    workspace,
    maxBytes: limits.maxSourceBytes,
    tier: caller.tier,
    accept: mediaSourceFormats,
    identify: (path) => identifyMediaFormat(path, signal),
    signal,
    deadline,
  });
  // downloadSource refuses every format outside `accept`; this narrows the type.
  if (!isMediaSourceFormat(source.format)) throw new Error(`download accepted ${source.format}`);
  return { path: source.path, format: source.format, baseName: source.baseName, sizeBytes: source.sizeBytes };
}

/** What a conversion needs of the request. */
export function mediaContext({
  caller,
  limits,
  workspace,
  signal,
  onProgress,
}: SourceRequest & { signal: AbortSignal; onProgress: (percent: number) => void }): MediaContext {
  return { workspace, tier: caller.tier, maxMediaSeconds: limits.maxMediaSeconds, signal, onProgress };
}
