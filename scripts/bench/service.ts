import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

/**
 * The service as a client meets it: the local gateway (`npm start`) in its own process, fed by a
 * loopback source server, and a client that streams answers away without keeping them.
 */

export const BENCH_KEY = 'bench-key';

export interface RunningService {
  url: string;
  port: number;
  pid: number;
  /** The gateway's last error log lines (at most 20), to explain a failed measurement. */
  recentErrors(): string[];
  stop(): Promise<void>;
}

/**
 * Starts the gateway as `npm start` does; an enterprise key whose rate limit never binds here.
 * `env` overrides the inherited environment (e.g. pinning LOCAL_ISOLATION).
 */
export async function startService(
  rootDir: string,
  env: Record<string, string> = {},
): Promise<RunningService> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', 'infra/local/start.ts'],
    {
      cwd: rootDir,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        SOURCE_ALLOW_PRIVATE: 'true',
        API_KEYS: `${BENCH_KEY}:enterprise:100000000`,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      if (output.length < 10_000) output += chunk.toString();
      const found = /Listening on (http:\/\/\S+)/.exec(output);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
  });
  // The gateway logs a line per request (LOG_LEVEL info, as in production): read, and dropped
  // unless it is an error.
  child.stdout?.removeAllListeners('data');
  const errors: string[] = [];
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.includes('"level":"error"')) errors.push(line.slice(0, 500));
    errors.splice(0, Math.max(0, errors.length - 20));
  });
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    recentErrors: () => [...errors],
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export interface SourceServer {
  /** Serves a file from disk under its own name; answers with its URL. */
  add(path: string): string;
  stop(): Promise<void>;
}

/** A loopback server that streams source files from disk, as a CDN would serve them. */
export async function startSourceServer(): Promise<SourceServer> {
  const files = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const path = files.get(decodeURIComponent((request.url ?? '/').slice(1)));
    if (!path) {
      response.writeHead(404).end();
      return;
    }
    void stat(path).then(({ size }) => {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
      createReadStream(path).pipe(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    add(path) {
      files.set(basename(path), path);
      return `http://127.0.0.1:${port}/${encodeURIComponent(basename(path))}`;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface Answer {
  status: number;
  bytes: number;
}

/**
 * POSTs JSON to the gateway with the bench key; counts the answer's bytes as they stream by. On a
 * kept-alive connection from a pool, or (`connection: 'one per request'`) on a connection of its
 * own, closed once the answer is read, as curl and most one-shot clients do.
 */
export function post(
  baseUrl: string,
  path: string,
  body: unknown,
  options: { connection?: 'kept alive' | 'one per request' } = {},
): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        agent: options.connection === 'one per request' ? false : agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': payload.length,
          'x-api-key': BENCH_KEY,
        },
      },
      (response) => {
        let bytes = 0;
        let text = '';
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (response.statusCode !== 200 && text.length < 2000) text += chunk.toString();
        });
        response.once('end', () => {
          if (response.statusCode !== 200) {
            reject(new Error(`${path} answered ${response.statusCode}: ${text}`));
          } else resolve({ status: 200, bytes });
        });
        response.once('error', reject);
      },
    );
    request.once('error', reject);
    request.end(payload);
  });
}

export const closeClient = () => agent.destroy();
