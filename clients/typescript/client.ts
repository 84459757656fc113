import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.ts';

/**
 * A small typed client of the API over openapi-fetch, with the types `npm run client` generates
 * from openapi.yaml (./openapi.ts). It reads each answer as what it is: a JSON route's answer as
 * its typed JSON, a file route's answer as a Blob with its name and type, a 202 as the async job
 * it started, and every refusal as the typed `{error, message}` body of the API.
 */

export type ErrorBody = components['schemas']['ErrorBody'];
export type JobAccepted = components['schemas']['JobAccepted'];
export type Job = components['schemas']['JobsResponse'];
export type OutputSent = components['schemas']['OutputSent'];

/** The paths served by POST, each with its request body. */
type PostPath = {
  [P in keyof paths]: paths[P]['post'] extends { requestBody: unknown } ? P : never;
}[keyof paths];
type Operation<P extends PostPath> = paths[P]['post'];

/** What a request to `path` may send: fields with a default may be left out. */
export type RequestBody<P extends PostPath> =
  Operation<P> extends {
    requestBody: { content: { 'application/json': infer Body } };
  }
    ? Body
    : never;

/** The content of the success answer: 200, or 201 for a route that creates something. */
type OkContent<P extends PostPath> =
  Operation<P> extends { responses: { 200: { content: infer C } } }
    ? C
    : Operation<P> extends { responses: { 201: { content: infer C } } }
      ? C
      : never;

/** The POST routes that answer JSON only (a file route also answers JSON, with `outputUrl`). */
export type JsonPath = {
  [P in PostPath]: Exclude<keyof OkContent<P>, 'application/json'> extends never ? P : never;
}[PostPath];
/** The POST routes that answer a file (and may run as async jobs with `callbackUrl`). */
export type FilePath = Exclude<PostPath, JsonPath>;

export type JsonAnswer<P extends JsonPath> = OkContent<P> extends { 'application/json': infer A } ? A : never;

/** A refusal: the HTTP status and the API's `{error, message}`. */
export interface Refused {
  ok: false;
  status: number;
  error: ErrorBody;
}

export type JsonResult<P extends JsonPath> = { ok: true; data: JsonAnswer<P> } | Refused;

export interface FileAnswer {
  ok: true;
  kind: 'file';
  file: Blob;
  /** The file name the service gives (Content-Disposition), e.g. `photo.webp`. */
  name: string;
  /** The media type, e.g. `image/webp`. */
  type: string;
}

export interface JobAnswer {
  ok: true;
  kind: 'job';
  job: JobAccepted;
}

/** With `outputUrl`: the file went there, and this says where. */
export interface OutputAnswer {
  ok: true;
  kind: 'output';
  output: OutputSent;
}

export type FileResult = FileAnswer | JobAnswer | OutputAnswer | Refused;

export type JobResult = { ok: true; job: Job } | Refused;

export interface ClientOptions {
  /** The API base URL, e.g. `http://127.0.0.1:3000` (`npm start`) or the stack's URL. */
  baseUrl: string;
  /** Optional: without it, requests are the free tier. */
  apiKey?: string;
  /** A fetch of your own (tests, proxies); the global fetch by default. */
  fetch?: typeof fetch;
}

/** The name in `inline; filename="photo.webp"`, or in its RFC 5987 form. */
function fileNameOf(disposition: string | null): string {
  const encoded = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition ?? '');
  if (encoded?.[1]) return decodeURIComponent(encoded[1]);
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(disposition ?? '');
  return plain?.[1] ?? plain?.[2] ?? '';
}

/** The error body of a refusal; a body that is not the API's (a proxy's page) still reads as one. */
function refused(status: number, body: unknown): Refused {
  const error =
    typeof body === 'object' && body !== null && 'error' in body && 'message' in body
      ? (body as ErrorBody)
      : ({ error: 'internal_error', message: String(body ?? `HTTP ${status}`) } as ErrorBody);
  return { ok: false, status, error };
}

/** The one POST signature the methods below use: openapi-fetch's, for any of the paths. */
type Post = (
  path: PostPath,
  init: { body: unknown; parseAs?: 'json' | 'stream' },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export function createFileConversionClient(options: ClientOptions) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: options.apiKey ? { 'x-api-key': options.apiKey } : {},
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const post = client.POST as unknown as Post;

  return {
    /** The openapi-fetch client itself, for anything the methods below do not cover. */
    raw: client,

    /** Calls a route that answers JSON, e.g. `json('/slugify', { text: 'Héllo' })`. */
    async json<P extends JsonPath>(path: P, body: RequestBody<P>): Promise<JsonResult<P>> {
      const { data, error, response } = await post(path, { body });
      if (error !== undefined || !response.ok) return refused(response.status, error);
      return { ok: true, data: data as JsonAnswer<P> };
    },

    /**
     * Calls a file route: the converted file as a Blob, or, with `callbackUrl` (paid tiers), the
     * async job it started, or, with `outputUrl` (paid tiers), where the file was sent.
     */
    async file<P extends FilePath>(path: P, body: RequestBody<P>): Promise<FileResult> {
      const { error, response } = await post(path, { body, parseAs: 'stream' });
      if (error !== undefined || !response.ok) return refused(response.status, error);
      if (response.status === 202)
        return { ok: true, kind: 'job', job: (await response.json()) as JobAccepted };
      if ((body as { outputUrl?: string }).outputUrl !== undefined)
        return { ok: true, kind: 'output', output: (await response.json()) as OutputSent };
      const type = response.headers.get('content-type') ?? 'application/octet-stream';
      return {
        ok: true,
        kind: 'file',
        file: await response.blob(),
        name: fileNameOf(response.headers.get('content-disposition')),
        type,
      };
    },

    /** The state of an async job (`statusUrl` of its 202). */
    async job(jobId: string): Promise<JobResult> {
      const { data, error, response } = await client.GET('/jobs/{jobId}', { params: { path: { jobId } } });
      if (data === undefined) return refused(response.status, error);
      return { ok: true, job: data };
    },
  };
}

export type FileConversionClient = ReturnType<typeof createFileConversionClient>;
