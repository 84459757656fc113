import { isImageInputFormat } from '#shared/image/formats.ts';
import type { ImageSource } from '#shared/image/output-file.ts';
import { downloadSource } from '#shared/source/download.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import type { SourceRequest } from '#shared/source/request.ts';

/** Downloads an image source under the source rules, its format sniffed from the bytes. */
export async function downloadImage(
  url: string,
  { caller, limits, workspace, signal, deadline }: SourceRequest,
  /** A second source of the request: its field (named in its errors) and its file name. */
  second?: { field: string; fileName: string },
): Promise<ImageSource & { sizeBytes: number; baseName: string }> {
  const source = await downloadSource(url, {
    workspace,
    maxBytes: limits.maxSourceBytes,
    tier: caller.tier,
    accept: imageInputFormats,
    signal,
    deadline,
    ...(second ?? {}),
  });
  // downloadSource refuses every format outside `accept`; this narrows the type.
  if (!isImageInputFormat(source.format)) throw new Error(`download accepted ${source.format}`);
  return { path: source.path, format: source.format, sizeBytes: source.sizeBytes, baseName: source.baseName };
}
