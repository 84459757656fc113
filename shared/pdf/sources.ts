import { basename } from 'node:path';
import { ApiError, inField } from '#shared/errors.ts';
import { decryptPdf, type SourceEncryption } from '#shared/pdf/decrypt.ts';
import { downloadSource, type Source } from '#shared/source/download.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import type { SourceRequest } from '#shared/source/request.ts';
import { type TierLimits, type TierName, tiers, tierThatLifts } from '#shared/tiers.ts';
import { formatBytes } from '#shared/units.ts';

/** The tier's batch size: past it, 400 validation_failed naming the tier that takes that many. */
export function checkBatchSize(count: number, tier: TierName, limits: TierLimits): void {
  if (count <= limits.maxBatchFiles) return;
  const lift = tierThatLifts((candidate) => candidate.maxBatchFiles >= count);
  const hint = lift
    ? ` The ${lift} tier takes up to ${tiers[lift].maxBatchFiles}.`
    : ' No tier takes that many in one request.';
  throw new ApiError(
    'validation_failed',
    `sources: ${count} files are more than the ${limits.maxBatchFiles} per request of the ${tier} tier.${hint}`,
  );
}

/** A downloaded PDF, ready to be read: decrypted when it was encrypted and a password was given. */
export interface PdfSource extends Source {
  /** How the source was encrypted, when it was and was decrypted; `path` is then the decrypted copy. */
  encryption?: SourceEncryption;
}

/**
 * The one place where an encrypted source is opened with its password: with `password`, an
 * encrypted PDF is decrypted by qpdf into the workspace (a wrong password is 400 invalid_password),
 * and every reader after this reads the copy as it reads any PDF. Without a password, or for a PDF
 * that is not encrypted, the source stays as it is (and an encrypted one is refused where it is
 * opened, 400 encrypted_pdf).
 */
export async function readableSource(
  source: Source,
  password: string | undefined,
  request: SourceRequest,
): Promise<PdfSource> {
  if (password === undefined) return source;
  const decrypted = await request.workspace.file(`${basename(source.path)}-decrypted.pdf`);
  const encryption = await decryptPdf(source.path, decrypted, password, {
    deadline: request.deadline,
    signal: request.signal,
  });
  return encryption ? { ...source, path: decrypted, encryption } : source;
}

/** Downloads the one PDF of a request under the contract's download rules, decrypted with `password`. */
export async function downloadPdf(
  url: string,
  request: SourceRequest,
  password?: string | undefined,
): Promise<PdfSource> {
  const source = await downloadSource(url, {
    workspace: request.workspace,
    maxBytes: request.limits.maxSourceBytes,
    tier: request.caller.tier,
    accept: ['pdf'],
    signal: request.signal,
    deadline: request.deadline,
    fileName: 'source-0',
  });
  return readableSource(source, password, request);
}

/** Downloads the PDFs of a batch (downloadBatch), each encrypted one decrypted with `password`. */
export async function downloadPdfBatch(
  urls: readonly string[],
  request: SourceRequest,
  password?: string | undefined,
): Promise<PdfSource[]> {
  const sources = await downloadBatch(urls, ['pdf'], request);
  const readable: PdfSource[] = [];
  for (const [index, source] of sources.entries()) {
    try {
      readable.push(await readableSource(source, password, request));
    } catch (error) {
      throw inField(`sources.${index}`, error);
    }
  }
  return readable;
}

/** Downloads running at once: enough to hide latency, few enough to be kind to the sources. */
const parallelDownloads = 4;

/**
 * Downloads the sources of a batch, a few at a time, each under the contract's download rules and
 * the tier's size limit. The batch together may not exceed the tier's size limit either: the bytes
 * of all downloads are counted as they stream, and the batch stops as soon as they pass it (413,
 * naming the tier that lifts it), so a batch can never fill the disk. On the first failure the
 * others are stopped and awaited, so that nothing writes to the workspace after the request has ended.
 */
export async function downloadBatch(
  urls: readonly string[],
  accept: readonly SourceFormat[],
  request: SourceRequest,
  /** Names a file the byte sniffer cannot (the media routes ask ffprobe). */
  identify?: (path: string, signal: AbortSignal) => Promise<SourceFormat | undefined>,
): Promise<Source[]> {
  const { workspace, limits } = request;
  const { tier } = request.caller;
  checkBatchSize(urls.length, tier, limits);
  const stop = new AbortController();
  const signal = request.signal ? AbortSignal.any([stop.signal, request.signal]) : stop.signal;
  const results: Source[] = [];
  let next = 0;
  let failure: unknown;
  let total = 0;
  const fail = (error: unknown) => {
    failure ??= error;
    stop.abort(failure);
  };
  const countBatch = (chunk: Buffer) => {
    total += chunk.length;
    if (total > limits.maxSourceBytes) fail(batchTooLarge(tier, limits));
  };
  const worker = async () => {
    while (failure === undefined && next < urls.length) {
      const index = next;
      next += 1;
      const field = `sources.${index}`;
      try {
        results[index] = await downloadSource(urls[index]!, {
          workspace,
          maxBytes: limits.maxSourceBytes,
          tier,
          accept,
          ...(identify ? { identify: (path: string) => identify(path, signal) } : {}),
          signal,
          deadline: request.deadline,
          field,
          fileName: `source-${index}`,
          onChunk: countBatch,
        });
      } catch (error) {
        fail(inField(field, error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelDownloads, urls.length) }, worker));
  if (failure !== undefined) throw failure;

  return results;
}

function batchTooLarge(tier: TierName, limits: TierLimits): ApiError {
  const lift = tierThatLifts((candidate) => candidate.maxSourceBytes > limits.maxSourceBytes);
  const hint = lift ? ` The ${lift} tier accepts up to ${formatBytes(tiers[lift].maxSourceBytes)}.` : '';
  return new ApiError(
    'source_too_large',
    `sources: together the files are more than the ${formatBytes(limits.maxSourceBytes)} one request of the ${tier} tier may bring.${hint}`,
  );
}
