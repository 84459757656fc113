import { connect, type Socket } from 'node:net';
import { percentile } from './measure.ts';

/**
 * A small loopback load generator: `connections` keep-alive sockets, each sending the same
 * pre-built request again as soon as the previous answer is complete. Cheap enough on the client
 * side that the server, not the client, is what is measured. Reads Content-Length and chunked answers.
 */

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 200. */
  failures: number;
}

export function buildRequest(path: string, body: unknown, headers: Record<string, string> = {}): Buffer {
  const payload = Buffer.from(JSON.stringify(body));
  const head = Object.entries({
    Host: '127.0.0.1',
    'Content-Type': 'application/json',
    'Content-Length': String(payload.length),
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${head}\r\n`), payload]);
}

/** The length of the complete answer at the start of `data`, or undefined while it is incomplete. */
function answerLength(data: Buffer): { length: number; status: number } | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const head = data.subarray(0, headEnd).toString('latin1');
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (contentLength) {
    const length = bodyStart + Number(contentLength[1]);
    return data.length >= length ? { length, status } : undefined;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) return { length: bodyStart, status };
  let at = bodyStart;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) {
      const end = data.indexOf('\r\n\r\n', lineEnd);
      return end === -1 ? undefined : { length: end + 4, status };
    }
    at = lineEnd + 2 + size + 2;
    if (at > data.length) return undefined;
  }
}

export async function hammer(options: {
  port: number;
  request: Buffer;
  connections: number;
  durationMs: number;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + options.durationMs;
  const runConnection = () =>
    new Promise<void>((resolve, reject) => {
      const socket: Socket = connect(options.port, '127.0.0.1');
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        sentAt = performance.now();
        socket.write(options.request);
      };
      socket.once('connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const answer = answerLength(pending);
        if (!answer) return;
        const now = performance.now();
        latencies.push(now - sentAt);
        if (answer.status !== 200) failures += 1;
        pending = pending.subarray(answer.length);
        if (now < deadline) send();
        else socket.end();
      });
      socket.once('close', () => resolve());
      socket.once('error', reject);
    });
  await Promise.all(Array.from({ length: options.connections }, runConnection));
  const seconds = (performance.now() - startedAt) / 1000;
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failures,
  };
}
