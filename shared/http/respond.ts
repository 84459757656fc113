import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { contentDisposition, JSON_TYPE } from '#shared/http/headers.ts';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Readable;
}

/** A converted file on disk, ready to be streamed back as the answer's body. */
export interface FileResult {
  path: string;
  contentType: string;
  /** The name the client sees, e.g. `photo.webp`. */
  fileName: string;
  headers?: Record<string, string>;
}

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  return { statusCode, headers: { ...headers, 'Content-Type': JSON_TYPE }, body: JSON.stringify(body) };
}

export async function fileResponse(file: FileResult): Promise<HttpResponse> {
  const { size } = await stat(file.path);
  return {
    statusCode: 200,
    headers: {
      ...file.headers,
      'Content-Type': file.contentType,
      'Content-Length': String(size),
      'Content-Disposition': contentDisposition(file.fileName),
    },
    body: createReadStream(file.path),
  };
}
