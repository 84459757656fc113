import { type Agent, request as httpRequest } from 'node:http';
import type { Send } from './scenario.ts';

/**
 * POSTs JSON to the gateway at `base` with the run's API key, over `agent`'s keep-alive sockets,
 * and collects the whole answer; no answer within `timeoutMs` is an error (a lost request).
 */
export function createSender(base: URL, agent: Agent, apiKey: string, timeoutMs: number): Send {
  return (path, body) =>
    new Promise((resolve, reject) => {
      const payload = Buffer.from(JSON.stringify(body));
      const request = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          path,
          method: 'POST',
          agent,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': payload.length,
            'x-api-key': apiKey,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(payload);
    });
}
