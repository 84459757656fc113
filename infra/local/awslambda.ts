import type { Writable } from 'node:stream';

/**
 * The two pieces of the Lambda Node.js runtime that response streaming uses, as the runtime
 * defines them: `awslambda.streamifyResponse` marks a handler as streaming, and
 * `awslambda.HttpResponseStream.from` writes the HTTP metadata prelude (JSON), then eight NUL bytes,
 * before the body. The local gateway reads the same byte stream that API Gateway reads in AWS.
 */
export const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
export const PRELUDE_DELIMITER = Buffer.alloc(8);
export const HTTP_INTEGRATION_TYPE = 'application/vnd.awslambda.http-integration-response';

export interface ResponseStream extends Writable {
  setContentType(type: string): void;
}

export type StreamingHandler = ((
  event: unknown,
  stream: ResponseStream,
  context: unknown,
) => Promise<void>) & {
  [STREAMING]?: string;
};

const awslambda = {
  streamifyResponse(handler: StreamingHandler): StreamingHandler {
    handler[STREAMING] = 'response';
    return handler;
  },
  HttpResponseStream: {
    from(stream: ResponseStream, prelude: Record<string, unknown>): ResponseStream {
      stream.setContentType(HTTP_INTEGRATION_TYPE);
      stream.write(JSON.stringify(prelude));
      stream.write(PRELUDE_DELIMITER);
      return stream;
    },
  },
};

export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as StreamingHandler)[STREAMING] === 'response';

/**
 * Installs the global before any handler module is imported (middy reads it at import time). The
 * AWS SDK's invoke store (@aws/lambda-invoke-store) may have made an empty `awslambda` already,
 * when the embedded S3 server loaded first: the methods are added to it.
 */
export function installAwsLambdaGlobal(): void {
  const holder = globalThis as { awslambda?: Partial<typeof awslambda> };
  holder.awslambda ??= {};
  const global = holder.awslambda;
  global.streamifyResponse ??= awslambda.streamifyResponse;
  global.HttpResponseStream ??= awslambda.HttpResponseStream;
}
