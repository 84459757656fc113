import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { config } from '#shared/config.ts';
import { ApiError } from '#shared/errors.ts';
import { assertHttpUrl, type HostLookup } from '#shared/source/address.ts';
import { baseNameOf } from '#shared/source/base-name.ts';
import type { SourceFormat } from '#shared/source/formats.ts';
import { openPinnedRequest } from '#shared/source/pinned-request.ts';
import { sniffFormat } from '#shared/source/sniff.ts';
import { stage } from '#shared/stages.ts';
import { type TierName, tiers, tierThatLifts } from '#shared/tiers.ts';
import { formatBytes } from '#shared/units.ts';
import type { Workspace } from '#shared/workspace.ts';
// Functions that download are the heavy ones: only they load a tracer, and only in Lambda.
import '#shared/xray.ts';

export interface SourceOptions {
  /** The request's workspace; the file is written inside it. */
  workspace: Workspace;
  /** The tier's size limit in bytes. */
  maxBytes: number;
  /** The caller's tier, to name the tier that would lift the size limit. */
  tier: TierName;
  /** Formats the operation takes; 'any' skips sniffing. */
  accept: readonly SourceFormat[] | 'any';
  /** Names the downloaded file's format; default the byte sniffer (an area may add its own reader). */
  identify?: (path: string) => Promise<SourceFormat | undefined>;
  /** Time for the whole exchange, connect to last byte; default SOURCE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** When the request must have answered (epoch ms); the download gives up a margin before it. */
  deadline?: number | undefined;
  /**
   * Lets loopback and private addresses through; default SOURCE_ALLOW_PRIVATE, or for the
   * service's own upload links only (`isOwnUploadUrl`), true.
   */
  allowPrivate?: boolean;
  signal?: AbortSignal;
  /** Name of the file inside the workspace; default 'source'. */
  fileName?: string;
  /** Sees every byte as it streams. */
  onChunk?: (chunk: Buffer) => void;
  /** Name resolution; default the system resolver. */
  lookup?: HostLookup;
  /** The request field named in URL errors; default 'sourceUrl'. */
  field?: string;
}

export interface Source {
  path: string;
  /** The sniffed format; undefined only when `accept` is 'any'. */
  format: SourceFormat | undefined;
  sizeBytes: number;
  baseName: string;
}

/**
 * Time kept back before the request's deadline: a source still sending then is cut off with 504
 * source_timeout while there is time to answer, rather than the function being stopped mid-download.
 */
export const DEADLINE_MARGIN_MS = 1000;

/** The download's time: the configured timeout, shortened to what the request has left. */
function downloadTime(options: SourceOptions): { ms: number; why: string } {
  const configured = options.timeoutMs ?? config.SOURCE_TIMEOUT_MS;
  const left = (options.deadline ?? Number.POSITIVE_INFINITY) - DEADLINE_MARGIN_MS - Date.now();
  if (configured <= left) return { ms: configured, why: '' };
  return { ms: Math.max(0, left), why: ', the time this request had left' };
}

/**
 * Private addresses are reached where the configuration allows them, and otherwise only for a
 * link the service made itself to an upload in its own store. The check (and its signer) loads
 * only for a URL into that store.
 */
async function mayReachPrivate(url: URL): Promise<boolean> {
  if (config.SOURCE_ALLOW_PRIVATE) return true;
  if (!config.S3_ENDPOINT) return false;
  const { isOwnUploadUrl, isUploadAreaUrl } = await import('#shared/source/own-upload.ts');
  return isUploadAreaUrl(url) && isOwnUploadUrl(url);
}

function tooLarge(options: SourceOptions, contentLength?: number): ApiError {
  const lift = tierThatLifts(
    (limits) =>
      limits.maxSourceBytes > options.maxBytes &&
      (contentLength === undefined || limits.maxSourceBytes >= contentLength),
  );
  const size = contentLength === undefined ? 'larger than' : `${formatBytes(contentLength)}, over`;
  const hint = lift
    ? ` The ${lift} tier accepts sources up to ${formatBytes(tiers[lift].maxSourceBytes)}.`
    : ' No tier accepts a source this large.';
  return new ApiError(
    'source_too_large',
    `The source is ${size} the ${formatBytes(options.maxBytes)} limit of the ${options.tier} tier.${hint}`,
  );
}

function checkHead(response: IncomingMessage, options: SourceOptions): void {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    throw new ApiError(
      'source_redirect',
      `The source answered with a redirect (HTTP ${status}); redirects are not followed, give the final URL.`,
    );
  }
  if (status !== 200) {
    const reason = STATUS_CODES[status];
    throw new ApiError(
      'source_bad_status',
      `The source answered HTTP ${status}${reason ? ` ${reason}` : ''}; only 200 is accepted.`,
    );
  }
  const declared = response.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > options.maxBytes) {
    throw tooLarge(options, Number(declared));
  }
}

/** Streams the body to `path`, counting bytes; past maxBytes it stops with 413. */
async function saveBody(response: IncomingMessage, path: string, options: SourceOptions): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > options.maxBytes) {
        callback(tooLarge(options));
        return;
      }
      try {
        options.onChunk?.(chunk);
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback(null, chunk);
    },
  });
  let brokeOff: Error | undefined;
  response.once('error', (error) => {
    brokeOff = error;
  });
  try {
    await pipeline(response, counter, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (brokeOff !== undefined || !response.complete) {
      throw new ApiError(
        'source_unreachable',
        'The connection to the source broke off before the whole file arrived.',
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  return size;
}

function unsupported(found: SourceFormat | undefined, accept: readonly SourceFormat[]): ApiError {
  const what = found ? `in ${found} format` : 'in no format this service reads';
  return new ApiError(
    'unsupported_input_format',
    `The source is ${what}; this operation accepts ${accept.join(', ')}.`,
  );
}

/**
 * Downloads a source under the contract's rules: an absolute http(s) URL, the host resolved once
 * and every address checked, the connection pinned to it, no redirects, only 200, the body streamed
 * to the workspace with a byte counter against the tier's limit, all within one deadline, and the
 * format sniffed from the bytes. On any failure the partial file is removed.
 */
export function downloadSource(rawUrl: string, options: SourceOptions): Promise<Source> {
  return stage('download', () => fetchSource(rawUrl, options));
}

async function fetchSource(rawUrl: string, options: SourceOptions): Promise<Source> {
  const url = assertHttpUrl(rawUrl, options.field);
  const path = await options.workspace.file(options.fileName ?? 'source');
  const time = downloadTime(options);
  const timeUp = new AbortController();
  const timer = setTimeout(() => {
    timeUp.abort(
      new ApiError(
        'source_timeout',
        `The source did not send the whole file within ${Number((time.ms / 1000).toFixed(3))} s${time.why}.`,
      ),
    );
  }, time.ms);
  const signal = options.signal ? AbortSignal.any([timeUp.signal, options.signal]) : timeUp.signal;
  let response: IncomingMessage | undefined;
  try {
    response = await openPinnedRequest(url, {
      allowPrivate: options.allowPrivate ?? (await mayReachPrivate(url)),
      lookup: options.lookup,
      signal,
      headers: { accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'file-conversion-api' },
    });
    checkHead(response, options);
    const sizeBytes = await saveBody(response, path, options);
    if (signal.aborted) throw signal.reason;
    const format = options.accept === 'any' ? undefined : await (options.identify ?? sniffFormat)(path);
    if (options.accept !== 'any' && (format === undefined || !options.accept.includes(format))) {
      throw unsupported(format, options.accept);
    }
    return { path, format, sizeBytes, baseName: baseNameOf(url) };
  } catch (error) {
    await rm(path, { force: true });
    // An abort shows up downstream as a broken connection; report the abort's own reason instead.
    const brokenByAbort = !(error instanceof ApiError) || error.code === 'source_unreachable';
    if (signal.aborted && brokenByAbort) throw signal.reason ?? error;
    throw error;
  } finally {
    clearTimeout(timer);
    response?.destroy();
  }
}
