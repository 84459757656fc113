import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { RouteSpec } from '#shared/routes.ts';

export interface EventParts {
  request: IncomingMessage;
  headers: ProxyHeaders;
  url: URL;
  route: RouteSpec;
  pathParameters: Record<string, string> | null;
  body: Buffer;
  requestId: string;
  sourceIp: string;
  authorizer: Record<string, string | number | boolean>;
}

export interface ProxyHeaders {
  /** Names in lower case; a repeated header keeps its last value, as API Gateway's `headers` does. */
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
}

/** The request's headers in the two shapes of the proxy event, read in one pass. */
export function proxyHeaders(request: IncomingMessage): ProxyHeaders {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const raw = request.rawHeaders;
  for (let at = 0; at < raw.length; at += 2) {
    const name = raw[at]!.toLowerCase();
    const value = raw[at + 1]!;
    headers[name] = value;
    const values = multiValueHeaders[name];
    if (values) values.push(value);
    else multiValueHeaders[name] = [value];
  }
  return { headers, multiValueHeaders };
}

/**
 * Builds the REST API (v1) proxy event API Gateway would send. Bodies arrive base64-encoded, as
 * API Gateway delivers them with binary media types `*\/*`.
 */
export function toProxyEvent(parts: EventParts): APIGatewayProxyEvent {
  const { request, url, route } = parts;
  const { headers, multiValueHeaders } = parts.headers;
  const query: Record<string, string> = {};
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiValueQuery[name] = [...(multiValueQuery[name] ?? []), value];
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: request.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: parts.pathParameters,
    stageVariables: null,
    body: parts.body.length > 0 ? parts.body.toString('base64') : null,
    isBase64Encoded: parts.body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      stage: 'local',
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: request.method ?? 'GET',
      path: url.pathname,
      resourceId: route.function,
      resourcePath: route.path,
      requestId: parts.requestId,
      requestTimeEpoch: Date.now(),
      identity: {
        sourceIp: parts.sourceIp,
        userAgent: headers['user-agent'] ?? null,
        apiKey: headers['x-api-key'] ?? null,
      },
      authorizer: parts.authorizer,
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export function lambdaContext(functionName: string, timeoutMs: number, memoryMiB = 1024): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMiB),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
