import './install-awslambda.ts';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { authorize } from '#shared/auth/authorize.ts';
import { callerToContext } from '#shared/auth/caller.ts';
import { type ApiKeyRecord, parseApiKeys } from '#shared/auth/keys.ts';
import { ApiError, type ErrorCode, toPublicError } from '#shared/errors.ts';
import { statusOf } from '#shared/http/errors.ts';
import { corsHeaders, JSON_TYPE, preflightHeaders } from '#shared/http/headers.ts';
import { log, logRequest } from '#shared/log.ts';
import { bufferedTimeoutSeconds } from '#shared/routes/sizing.ts';
import { routes } from '#shared/routes.ts';
import { tiers } from '#shared/tiers.ts';
import { proxyHeaders, toProxyEvent } from './event.ts';
import { answerForEndedInvocation } from './invocation-failure.ts';
import type { InvokeResult } from './invoke.ts';
import { type Invoker, inProcessInvoker, workerInvoker } from './invoker.ts';
import type { PoolOptions } from './pool.ts';
import { rateLimitHeaders, rateLimitMessage, SlidingWindowLimiter } from './rate-limit.ts';
import { createRouter } from './router.ts';

/** API Gateway refuses payloads over 10 MB before any function runs. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

export interface GatewayOptions {
  port?: number;
  host?: string;
  /** `API_KEYS` syntax: `key:tier` or `key:enterprise:<rpm>`, comma-separated. */
  apiKeys?: string;
  proxySecret?: string;
  /**
   * `workers` (what `npm start` uses): each function in its own pool of worker processes with its
   * Lambda memory size and timeout. `in-process`: the handlers in this process, unbounded, for
   * tests that replace modules the handlers import.
   */
  isolation?: 'workers' | 'in-process';
  workers?: PoolOptions;
}

export interface Gateway {
  url: string;
  /** An asynchronous invocation (the local Lambda API's `Event` type), run as the gateway runs functions. */
  invokeAsync(functionName: string, payload: unknown): void;
  close(): Promise<void>;
}

/** One request as the gateway tracks it. */
interface Call {
  requestId: string;
  sourceIp: string;
  /** The caller's rate-limit standing, once the caller is known. */
  limitHeaders?: Record<string, string>;
}

/**
 * The local stand-in for API Gateway: matches routes from the table, runs the same authorizer
 * rules and rate limits, builds proxy events and invokes the very handlers that ship to Lambda.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const keys = parseApiKeys(options.apiKeys);
  const lookupKey = (key: string): ApiKeyRecord | undefined => keys.get(key);
  const limiter = new SlidingWindowLimiter();
  const sweeper = setInterval(() => limiter.sweep(), 60_000).unref();
  const match = createRouter(routes);
  const invoker: Invoker =
    options.isolation === 'workers' ? workerInvoker(options.workers) : inProcessInvoker;

  const server = createServer((request, response) => {
    const call: Call = {
      requestId: randomUUID(),
      sourceIp: (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, ''),
    };
    serve(request, response, call).catch((error: unknown) => {
      const publicError = toPublicError(error, call.requestId);
      if (statusOf(publicError) >= 500) {
        log('error', 'gateway failure', {
          requestId: call.requestId,
          cause: error instanceof Error ? error.stack : String(error),
        });
      }
      if (!response.headersSent) refuse(response, call, publicError);
      else response.destroy();
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse, call: Call) {
    const { requestId, sourceIp } = call;
    const url = new URL(request.url ?? '/', 'http://local');
    // HEAD is answered as GET; Node's server sends the head of the answer without its body.
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    // The whole body is read before any answer, refusals included, as API Gateway does: a server that
    // answers and closes while the caller is still sending makes the caller's write fail (EPIPE)
    // instead of showing it the answer.
    const body = await readBody(request);
    const found = match(method, url.pathname);
    if (found.kind !== 'route') {
      // Answers given without running a function still show the caller's own standing.
      call.limitHeaders = standing(request, sourceIp);
    }
    if (found.kind === 'not_found') {
      return refuse(response, call, new ApiError('not_found', `No route ${url.pathname}.`));
    }
    if (found.kind === 'preflight') {
      response.writeHead(204, { ...call.limitHeaders, ...preflightHeaders, 'X-Request-Id': requestId }).end();
      return;
    }
    if (found.kind === 'method_not_allowed') {
      const methods = found.methods.includes('GET') ? [...found.methods, 'HEAD'] : found.methods;
      const allow = [...methods, 'OPTIONS'].join(', ');
      const error = new Refusal('method_not_allowed', `${url.pathname} answers ${allow}.`, { Allow: allow });
      return refuse(response, call, error);
    }

    const headers = proxyHeaders(request);
    const caller = authorize(
      { headers: headers.headers, sourceIp },
      { lookupKey, proxySecret: options.proxySecret },
    );
    // Rows marked quotaFree (the docs page, its assets, openapi.yaml) are served without being counted.
    const decision = found.route.quotaFree
      ? { ...limiter.peek(caller.callerId, caller.requestsPerMinute), allowed: true }
      : limiter.take(caller.callerId, caller.requestsPerMinute);
    call.limitHeaders = rateLimitHeaders(caller.tier, decision);
    if (!decision.allowed) {
      const message = rateLimitMessage(caller.tier, decision.limit, decision.resetSeconds);
      const headers = { 'Retry-After': String(decision.resetSeconds) };
      // No function runs, so the gateway writes the request line itself: a 429 is seen in the log.
      logRequest({
        requestId,
        route: found.route.function,
        tier: caller.tier,
        status: 429,
        errorCode: 'rate_limit_exceeded',
        durationMs: 0,
        bytesIn: body.length,
      });
      return refuse(response, call, new Refusal('rate_limit_exceeded', message, headers));
    }

    const event = toProxyEvent({
      request,
      headers,
      url,
      route: found.route,
      pathParameters: found.pathParameters,
      body,
      requestId,
      sourceIp,
      authorizer: { principalId: caller.callerId, ...callerToContext(caller) },
    });
    const functionName = found.route.function;
    // API Gateway cuts a buffered integration at 29 s; a streamed one runs to the function's timeout.
    const { timeoutSeconds } = found.route.sizing;
    const timeoutMs =
      found.route.kind === 'file'
        ? timeoutSeconds * 1000
        : Math.min(timeoutSeconds, bufferedTimeoutSeconds) * 1000;
    // The caller leaving stops the work, as it would be wasted. A caller that closes its connection
    // once it has the whole answer (curl and most one-shot clients do, often before the invocation
    // has removed its workspace and ended) has not left: its worker stays warm.
    const gone = new AbortController();
    let delivered = false;
    response.once('close', () => {
      if (!response.writableFinished && !delivered) gone.abort();
    });
    let result: InvokeResult;
    try {
      result = await invoker.invoke(functionName, event, { timeoutMs, signal: gone.signal });
    } catch (error) {
      const answer = answerForEndedInvocation(error, { requestId, functionName });
      if (answer) return refuse(response, call, answer.error, answer.status);
      if (gone.signal.aborted || (error as { name?: string }).name === 'InvocationEnded') {
        response.destroy();
        return;
      }
      throw error;
    }
    result.done.catch((error: unknown) => answerForEndedInvocation(error, { requestId, functionName }));
    if (Buffer.isBuffer(result.body)) {
      response.writeHead(result.statusCode, {
        ...call.limitHeaders,
        ...result.headers,
        'Content-Length': result.body.length,
      });
      response.end(result.body);
      return;
    }
    response.writeHead(result.statusCode, { ...call.limitHeaders, ...result.headers });
    const length = contentLength(result.headers);
    if (length !== undefined) {
      let handedOver = 0;
      result.body.on('data', (chunk: Buffer) => {
        handedOver += chunk.length;
        delivered = handedOver >= length;
      });
    }
    await pipeline(result.body, response).catch(() => response.destroy());
  }

  /**
   * The caller's rate-limit standing, not counted: the key's when the request names a valid one,
   * else the client IP's free tier (API Gateway, too, answers an unknown path before any authorizer).
   */
  function standing(request: IncomingMessage, sourceIp: string): Record<string, string> {
    try {
      const caller = authorize(
        { headers: proxyHeaders(request).headers, sourceIp },
        { lookupKey, proxySecret: options.proxySecret },
      );
      return rateLimitHeaders(caller.tier, limiter.peek(caller.callerId, caller.requestsPerMinute));
    } catch {
      return rateLimitHeaders('free', limiter.peek(`ip:${sourceIp}`, tiers.free.requestsPerMinute));
    }
  }

  /**
   * Answers with the contract's JSON error. An answer given before the caller is known reports the
   * client IP's free-tier standing.
   */
  function refuse(response: ServerResponse, call: Call, error: ApiError, status = statusOf(error)) {
    const limitHeaders =
      call.limitHeaders ??
      rateLimitHeaders('free', limiter.peek(`ip:${call.sourceIp}`, tiers.free.requestsPerMinute));
    const body: { error: ErrorCode; message: string } = error.toJSON();
    response.writeHead(status, {
      ...limitHeaders,
      ...corsHeaders,
      ...(error instanceof Refusal ? error.headers : {}),
      'Content-Type': JSON_TYPE,
      'X-Request-Id': call.requestId,
    });
    response.end(JSON.stringify(body));
  }

  server.on('clientError', answerMalformedRequest);

  // A busy port or a wrong host is the caller's to report (npm start names it in one line).
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    clearInterval(sweeper);
    await invoker.close();
    throw error;
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    invokeAsync: (functionName, payload) => invoker.invokeAsync(functionName, payload),
    close: async () => {
      clearInterval(sweeper);
      server.closeAllConnections();
      await Promise.all([invoker.close(), new Promise<void>((resolve) => server.close(() => resolve()))]);
    },
  };
}

/** An error the gateway answers itself, with headers of its own (Allow, Retry-After, Connection). */
class Refusal extends ApiError {
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, headers: Record<string, string>) {
    super(code, message);
    this.headers = headers;
  }
}

/** The body length an answer declares, if it does. */
function contentLength(headers: Record<string, string | string[]>): number | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-length' && typeof value === 'string') return Number(value);
  }
  return undefined;
}

/**
 * Requests Node's HTTP parser refuses before any handler runs (an unknown method, a broken request
 * line or header) still get the contract's JSON error and a request id, as API Gateway answers them
 * itself; the connection is closed, since nothing after the fault can be trusted.
 */
function answerMalformedRequest(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === 'HPE_INVALID_METHOD'
      ? new ApiError('method_not_allowed', 'Unknown HTTP method; routes answer GET, POST and OPTIONS.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('request_too_large', 'The request headers are too large.')
        : new ApiError('invalid_input', 'The request is not valid HTTP/1.1.');
  const body = JSON.stringify(refusal.toJSON());
  const headers = {
    ...corsHeaders,
    'Content-Type': JSON_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': randomUUID(),
    Connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${statusOf(refusal)} ${STATUS_CODES[statusOf(refusal)]}\r\n${head.join('')}\r\n${body}`,
  );
}

/**
 * The request body. Over 10 MB it answers 413, as API Gateway does, and closes the connection
 * after the answer; the rest of the upload is dropped unread.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= GATEWAY_MAX_BODY) return;
      request.off('data', collect);
      chunks.length = 0;
      const headers = { Connection: 'close' };
      reject(new Refusal('request_too_large', 'The request body is over 10 MB.', headers));
    };
    request.on('data', collect);
    request.once('end', () => resolve(Buffer.concat(chunks, size)));
    request.once('error', reject);
  });
}
