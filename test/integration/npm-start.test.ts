import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../support/gateway.ts';
import { descendants, isBlockedOnFutex, isRunning, waitFor, workersOf } from '../support/process-tree.ts';

/** `npm start` as a user runs it, in a process of its own: how it ends, and how it fails to start. */
const started: ChildProcess[] = [];
const seen = new Set<number>();
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of seen) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  seen.clear();
});

function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('npm start', () => {
  it('stops on SIGTERM within a few seconds, ending its workers, even one stuck in a handler', async () => {
    const npm = run('npm', ['start'], { LOCAL_ISOLATION: 'workers', LOCAL_WORKER_TEST_HOOKS: '1' });
    expect(await waitFor(() => /Listening on/.test(npm.output().stdout), 60_000)).toBe(true);
    const url = /Listening on (http:\/\/\S+)/.exec(npm.output().stdout)![1]!;
    void postJson(`${url}/text-case`, { text: 'x', case: 'upper' }, { 'x-test-hook': 'block' }).catch(
      () => {},
    );
    expect((await fetch(`${url}/status`)).status).toBe(200);
    const stuck = () => workersOf('text-case', descendants(npm.child.pid)).filter(isBlockedOnFutex);
    expect(await waitFor(() => stuck().length === 1, 30_000)).toBe(true);
    const tree = descendants(npm.child.pid);
    for (const pid of tree) seen.add(pid);
    expect(workersOf('status', tree)).toHaveLength(1);

    npm.child.kill('SIGTERM');
    // A bound no slow machine reaches: the gateway gives itself two seconds, the stuck worker 29 s.
    const ended = await Promise.race([npm.exited.then(() => true), sleep(15_000).then(() => false)]);
    expect(ended).toBe(true);
    expect(await waitFor(() => tree.every((pid) => !isRunning(pid)), 5_000)).toBe(true);
  }, 120_000);

  const busyPort = async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: String((server.address() as AddressInfo).port) };
  };

  it.each([
    [
      'a WEBHOOK_SECRET under 16 characters',
      { WEBHOOK_SECRET: 'too-short' },
      /^npm start: .*WEBHOOK_SECRET must be at least 16 characters/,
    ],
    ['a PORT that is no port', { PORT: '70000' }, /^npm start: .*PORT must be a port number from 0 to 65535/],
    [
      'an empty MARKETPLACE_PROXY_SECRET',
      { MARKETPLACE_PROXY_SECRET: '' },
      /MARKETPLACE_PROXY_SECRET must not be empty/,
    ],
    ['an S3_ENDPOINT that is no URL', { S3_ENDPOINT: 'not a url' }, /S3_ENDPOINT must be an http\(s\) URL/],
    ['a SOURCE_ALLOW_PRIVATE that is no flag', { SOURCE_ALLOW_PRIVATE: 'maybe' }, /SOURCE_ALLOW_PRIVATE/],
    ['a malformed API_KEYS entry', { API_KEYS: 'key-without-tier' }, /API_KEYS entry/],
    [
      'a LOCAL_ISOLATION that is neither mode',
      { LOCAL_ISOLATION: 'none' },
      /LOCAL_ISOLATION must be workers/,
    ],
  ])(
    'refuses %s in one line that names it, without a stack trace',
    async (_name, env, message) => {
      const start = run(
        process.execPath,
        ['--disable-warning=ExperimentalWarning', 'infra/local/start.ts'],
        env,
      );
      const [code] = await start.exited;
      const { stderr } = start.output();
      expect(code).toBe(1);
      expect(stderr).toMatch(message);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at |ZodError|node:internal/);
    },
    60_000,
  );

  it('names a busy port and what to do, in one line', async () => {
    const { server, port } = await busyPort();
    try {
      const start = run(process.execPath, ['--disable-warning=ExperimentalWarning', 'infra/local/start.ts'], {
        PORT: port,
      });
      const [code] = await start.exited;
      const { stderr } = start.output();
      expect(code).toBe(1);
      expect(stderr.trimEnd()).toBe(
        `npm start: PORT ${port} on 127.0.0.1 is already in use: stop the process that holds it, or set PORT to another port (PORT=0 picks a free one).`,
      );
    } finally {
      server.close();
    }
  }, 60_000);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
