import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayApiKey } from '../../functions/authorizer/key-directory.ts';

export interface RecordedCall {
  service: 'apigateway' | 'ssm';
  /** Query of a GetApiKeys call; JSON body of an SSM call. */
  input: Record<string, unknown>;
}

export interface FakeAws {
  endpoint: string;
  calls: RecordedCall[];
  keys: GatewayApiKey[];
  parameters: Map<string, string>;
  close(): Promise<void>;
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * The two AWS APIs the authorizer calls, on loopback and over their real wire formats, so that
 * the real SDK clients are exercised: API Gateway GetApiKeys (REST-JSON, GET /apikeys, paged by
 * `position`, two keys a page to force paging) and SSM GetParameter (JSON 1.1 with X-Amz-Target).
 */
export async function startFakeAws(): Promise<FakeAws> {
  const calls: RecordedCall[] = [];
  const keys: GatewayApiKey[] = [];
  const parameters = new Map<string, string>();
  const pageSize = 2;

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const send = (status: number, body: unknown, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && url.pathname === '/apikeys') {
      const input = Object.fromEntries(url.searchParams);
      calls.push({ service: 'apigateway', input });
      const matching = keys.filter((key) => (key.name ?? '').startsWith(input.name ?? ''));
      const start = Number(input.position ?? 0);
      const page = matching.slice(start, start + pageSize).map((key) => ({
        ...key,
        value: input.includeValues === 'true' ? key.value : undefined,
      }));
      const next = start + pageSize < matching.length ? String(start + pageSize) : undefined;
      send(200, { item: page, ...(next ? { position: next } : {}) });
      return;
    }
    const target = request.headers['x-amz-target'];
    if (request.method === 'POST' && target === 'AmazonSSM.GetParameter') {
      const input = JSON.parse(await readBody(request)) as { Name: string; WithDecryption?: boolean };
      calls.push({ service: 'ssm', input });
      const value = parameters.get(input.Name);
      if (value === undefined) {
        send(
          400,
          { __type: 'ParameterNotFound', message: `${input.Name} not found` },
          'application/x-amz-json-1.1',
        );
        return;
      }
      send(
        200,
        { Parameter: { Name: input.Name, Type: 'SecureString', Value: value, Version: 1 } },
        'application/x-amz-json-1.1',
      );
      return;
    }
    send(404, { message: `unexpected ${request.method} ${url.pathname} ${String(target)}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    keys,
    parameters,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
