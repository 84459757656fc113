import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { invokeHandler } from '../../infra/local/invoke.ts';

export interface EventOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  tier?: 'free' | 'pro' | 'enterprise';
  callerId?: string;
  /** Send the body base64-encoded, as API Gateway does with binary media types. */
  base64?: boolean;
}

/** A REST API (v1) proxy event as API Gateway builds it. */
export function apiEvent(body: unknown, options: EventOptions = {}): APIGatewayProxyEvent {
  const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
  const headers = { 'Content-Type': 'application/json', ...options.headers };
  const tier = options.tier ?? 'free';
  return {
    resource: options.path ?? '/',
    path: options.path ?? '/',
    httpMethod: options.method ?? 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: text === null ? null : options.base64 ? Buffer.from(text).toString('base64') : text,
    isBase64Encoded: options.base64 ?? false,
    requestContext: {
      requestId: `test-${Math.random().toString(36).slice(2)}`,
      identity: { sourceIp: '203.0.113.7' },
      authorizer: {
        tier,
        callerId: options.callerId ?? 'ip:203.0.113.7',
        requestsPerMinute: 10,
        keyed: tier !== 'free',
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export function lambdaContext(timeoutMs = 60_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: 'test',
    functionName: 'test',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  } as unknown as Context;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  json: () => unknown;
}

/** Invokes a handler (buffered or streaming) and collects the whole answer. */
export async function call(
  handler: unknown,
  event: APIGatewayProxyEvent,
  context: Context = lambdaContext(),
): Promise<Answer> {
  const result = await invokeHandler(handler, event, context);
  const body = Buffer.isBuffer(result.body) ? result.body : await buffer(result.body as Readable);
  await result.done;
  return { ...result, body, json: () => JSON.parse(body.toString('utf8')) };
}
