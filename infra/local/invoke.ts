import { PassThrough, type Readable, Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  HTTP_INTEGRATION_TYPE,
  isStreamingHandler,
  PRELUDE_DELIMITER,
  type ResponseStream,
} from './awslambda.ts';

export interface InvokeResult {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Readable | Buffer;
  /** Settles when the handler has finished (for a stream: after the last byte was handed over). */
  done: Promise<void>;
}

interface Prelude {
  statusCode?: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}

/** Invokes a handler as Lambda would, buffered or streaming, and hands back status, headers and body. */
export async function invokeHandler(
  handler: unknown,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<InvokeResult> {
  if (isStreamingHandler(handler)) return invokeStreaming(handler, event, context);
  const result = (await (handler as (e: unknown, c: Context) => Promise<APIGatewayProxyResult>)(
    event,
    context,
  )) ?? {
    statusCode: 200,
    body: '',
  };
  return {
    statusCode: result.statusCode,
    headers: mergeHeaders(result.headers, result.multiValueHeaders),
    body: Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'),
    done: Promise.resolve(),
  };
}

function invokeStreaming(
  handler: (event: unknown, stream: ResponseStream, context: unknown) => Promise<void>,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<InvokeResult> {
  return new Promise((resolve, reject) => {
    const body = new PassThrough();
    let contentType = 'application/octet-stream';
    let pending: Buffer | undefined = Buffer.alloc(0); // bytes before the prelude delimiter
    let headSent = false;
    let settle: (error?: unknown) => void = () => {};
    const done = new Promise<void>((resolveDone, rejectDone) => {
      settle = (error) => (error ? rejectDone(error) : resolveDone());
    });
    done.catch(() => {}); // observed by the caller when it matters

    const sendHead = (prelude: Prelude) => {
      headSent = true;
      resolve({
        statusCode: prelude.statusCode ?? 200,
        headers: mergeHeaders(prelude.headers, prelude.multiValueHeaders, prelude.cookies),
        body,
        done,
      });
    };
    const forward = (chunk: Buffer, callback: (error?: Error | null) => void) => {
      if (chunk.length === 0 || body.write(chunk)) callback();
      else body.once('drain', () => callback());
    };

    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (pending === undefined) return forward(chunk, callback);
        if (contentType !== HTTP_INTEGRATION_TYPE) {
          pending = undefined;
          sendHead({ statusCode: 200, headers: { 'Content-Type': contentType } });
          return forward(chunk, callback);
        }
        pending = Buffer.concat([pending, chunk]);
        const at = pending.indexOf(PRELUDE_DELIMITER);
        if (at === -1) return callback();
        const prelude = JSON.parse(pending.subarray(0, at).toString('utf8')) as Prelude;
        const rest = pending.subarray(at + PRELUDE_DELIMITER.length);
        pending = undefined;
        sendHead(prelude);
        forward(rest, callback);
      },
      final(callback) {
        if (!headSent) sendHead({ statusCode: 200, headers: { 'Content-Type': contentType } });
        body.end();
        callback();
      },
    }) as ResponseStream;
    stream.setContentType = (type: string) => {
      contentType = type;
    };

    handler(event, stream, context).then(
      () => {
        if (!stream.writableEnded) stream.end();
        settle();
      },
      (error: unknown) => {
        settle(error);
        if (headSent) body.destroy(error instanceof Error ? error : new Error(String(error)));
        else reject(error);
      },
    );
  });
}

function mergeHeaders(
  single: Record<string, unknown> | undefined,
  multi: Record<string, unknown[]> | undefined,
  cookies?: string[],
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(multi ?? {})) headers[name] = value.map(String);
  for (const [name, value] of Object.entries(single ?? {})) headers[name] = String(value);
  if (cookies?.length) headers['Set-Cookie'] = cookies;
  return headers;
}
