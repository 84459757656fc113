import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';

const INVOKE_PATH = /^\/2015-03-31\/functions\/([a-z0-9-]+)\/invocations$/;

export interface LambdaApi {
  endpoint: string;
  close(): Promise<void>;
}

export type AsyncInvoke = (functionName: string, payload: unknown) => void;

/**
 * The part of the Lambda API that async jobs use: `Invoke` with InvocationType `Event`. It answers
 * 202 and hands the payload on to run apart, as Lambda does. Loopback only; the AWS SDK's
 * signature is not checked. It imports nothing of the service, so that it can start before the
 * service's configuration is read (which needs this endpoint).
 */
export async function startLambdaApi(
  isFunction: (name: string) => boolean,
  invoke: AsyncInvoke,
): Promise<LambdaApi> {
  const server = createServer(async (request, response) => {
    const name = INVOKE_PATH.exec(request.url ?? '')?.[1];
    if (request.method !== 'POST' || !name || !isFunction(name)) {
      response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"message":"Function not found"}');
      return;
    }
    if (request.headers['x-amz-invocation-type'] !== 'Event') {
      response
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end('{"message":"Only Event invocations"}');
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse((await buffer(request)).toString('utf8') || '{}');
    } catch {
      response
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end('{"message":"Payload is not JSON"}');
      return;
    }
    response.writeHead(202).end();
    invoke(name, payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
