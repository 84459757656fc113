import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

export interface RunningGateway {
  url: string;
  /** The S3 endpoint the gateway uses for the job store. */
  s3Endpoint: string;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

/** The keys of the shared gateway: one per tier, each with room for every request of the suite. */
export const SHARED_KEYS = {
  enterprise: 'shared-enterprise-key',
  pro: 'shared-pro-key',
  free: 'shared-free-key',
} as const;

/** What the shared gateway runs with (test/support/shared-gateway.ts starts it once per run). */
export const SHARED_GATEWAY_SETTINGS = {
  SOURCE_ALLOW_PRIVATE: 'true',
  // Files come back to the same functions minutes apart: more workers stay warm, and longer, so
  // that the run pays each function's cold start about once.
  LOCAL_WARM_WORKERS: '64',
  LOCAL_IDLE_SECONDS: '900',
  API_KEYS: `${SHARED_KEYS.enterprise}:enterprise:1000000,${SHARED_KEYS.pro}:pro,${SHARED_KEYS.free}:free`,
};

/**
 * The local gateway every test file shares (SHARED_GATEWAY_SETTINGS): for tests that need no
 * settings of their own. Its `stop` does nothing: the run stops it after the last file.
 */
export function sharedGateway(): RunningGateway {
  const { url, s3Endpoint } = inject('sharedGateway');
  return {
    url,
    s3Endpoint,
    output: () => {
      throw new Error('the shared gateway keeps no output: a test that reads it starts a gateway of its own');
    },
    stop: async () => {},
  };
}

/**
 * Starts `infra/local/start.ts` (what `npm start` runs) in its own process on a free port. Its
 * state (the embedded S3 server's objects, the webhook secret) goes to a folder of its own, removed
 * when it stops, unless `env` names a LOCAL_STATE_DIR.
 */
export async function startLocalGateway(env: Record<string, string> = {}): Promise<RunningGateway> {
  const ownState =
    env.LOCAL_STATE_DIR === undefined ? await mkdtemp(join(tmpdir(), 'gateway-state-')) : undefined;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', 'infra/local/start.ts'],
    {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ...(ownState ? { LOCAL_STATE_DIR: ownState } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const [url, s3Endpoint] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Listening on (http:\/\/\S+) \(S3 at (http:\/\/[^)\s]+)\)/.exec(output);
      if (found?.[1] && found[2]) {
        clearTimeout(timer);
        resolve([found[1], found[2]]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
  });
  return {
    url,
    s3Endpoint,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      if (ownState) await rm(ownState, { recursive: true, force: true });
    },
  };
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
