import { readFile } from 'node:fs/promises';
import { inMiB, maxHtmlBytes } from '#shared/documents/browser-limits.ts';
import type { PageContent } from '#shared/documents/browser-render.ts';
import { ApiError } from '#shared/errors.ts';
import type { CallInput } from '#shared/http/stack.ts';
import { downloadSource } from '#shared/source/download.ts';
import { sniffFormat } from '#shared/source/sniff.ts';

type RequestContext = Pick<CallInput<unknown>, 'workspace' | 'limits' | 'caller' | 'signal' | 'deadline'>;

/** A downloaded document and the name its result is given. */
export interface FetchedText {
  body: Buffer;
  baseName: string;
}

/** The most a downloaded document may hold, and what it is called in the refusal. */
export interface DocumentLimit {
  maxBytes: number;
  what: string;
}

/**
 * Downloads a page or text file under the source rules (the field named in its errors), and
 * refuses it when its bytes are a format of another kind (an image, a PDF, audio or video), or
 * once they pass the document's own limit (413, whatever the tier allows).
 */
export async function downloadText(
  rawUrl: string,
  field: string,
  request: RequestContext,
  limit: DocumentLimit,
): Promise<FetchedText> {
  let size = 0;
  const source = await downloadSource(rawUrl, {
    onChunk: (chunk) => {
      size += chunk.length;
      if (size > limit.maxBytes) {
        throw new ApiError(
          'source_too_large',
          `${field}: ${limit.what} may hold at most ${inMiB(limit.maxBytes)}; this one holds more.`,
        );
      }
    },
    workspace: request.workspace,
    maxBytes: request.limits.maxSourceBytes,
    tier: request.caller.tier,
    accept: 'any',
    deadline: request.deadline,
    signal: request.signal,
    field,
  });
  const found = await sniffFormat(source.path);
  if (found !== undefined) {
    throw new ApiError(
      'unsupported_input_format',
      `${field} is a ${found} file; this operation reads web pages and text.`,
    );
  }
  return { body: await readFile(source.path), baseName: source.baseName };
}

/** A web page fetched under the source rules, served to the browser at its own URL. */
export async function webPage(
  rawUrl: string,
  field: string,
  request: RequestContext,
): Promise<{
  content: PageContent;
  baseName: string;
}> {
  const { body, baseName } = await downloadText(rawUrl, field, request, {
    maxBytes: maxHtmlBytes,
    what: 'an HTML page',
  });
  // The URL as the browser will ask for it (normalised), so the guard recognises its own document.
  const url = new URL(rawUrl).href;
  return { content: { kind: 'document', url, body, contentType: htmlTypeOf(body) }, baseName };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The type a downloaded page is served to the browser with. The source's own header is not kept,
 * so bytes that are valid UTF-8 are declared so (ASCII included, which reads the same); others are
 * left to the page's own `<meta charset>` and the browser's detection.
 */
export function htmlTypeOf(body: Buffer): string {
  try {
    utf8.decode(body);
    return 'text/html; charset=utf-8';
  } catch {
    return 'text/html';
  }
}

/** A text file's bytes as UTF-8, else 400 invalid_source_file. */
export function decodeUtf8(body: Buffer, field: string): string {
  try {
    return utf8.decode(body);
  } catch (error) {
    throw new ApiError('invalid_source_file', `${field} is not UTF-8 text.`, { cause: error });
  }
}
