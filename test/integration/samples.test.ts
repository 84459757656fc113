import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, descendants, isRunning, waitFor } from '../support/process-tree.ts';

/**
 * `npm run samples` as README's quick start runs it, in the background under npm: its webhook
 * receiver checks signatures with the secret `npm start` keeps, a second start on its port says so
 * in one line, and `kill` of npm ends it, port and all.
 */
function runSamples(env: Record<string, string>) {
  const child = spawn('npm', ['run', 'samples'], {
    env: { ...process.env, SAMPLES_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

describe('npm run samples', () => {
  let state: string;
  let samples: ReturnType<typeof runSamples>;
  let url: string;
  const secret = 'a-local-webhook-secret-of-64-hex';
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'samples-state-'));
    // What npm start leaves in its state folder when it generates the secret.
    await writeFile(join(state, 'webhook-secret'), `${secret}\n`);
    samples = runSamples({ SAMPLES_PORT: '0', LOCAL_STATE_DIR: state, WEBHOOK_SECRET: '' });
    started.push(samples.child);
    expect(await waitFor(() => /Samples on (\S+):/.test(samples.output()), 90_000), samples.output()).toBe(
      true,
    );
    url = /Samples on (\S+):/.exec(samples.output())![1]!;
  }, 120_000);

  afterAll(async () => {
    for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    if (state) await rm(state, { recursive: true, force: true });
  });

  const hook = (body: string, signature: string) =>
    fetch(`${url}/hook`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Signature': signature },
      body,
    });

  it('prints each webhook it receives and whether its signature checks with the local secret', async () => {
    const body = JSON.stringify({ jobId: 'job-1', status: 'succeeded' });
    const signed = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect((await hook(body, signed)).status).toBe(204);
    expect((await hook(body, `sha256=${'0'.repeat(64)}`)).status).toBe(204);
    expect(await waitFor(() => samples.output().includes('INVALID'), 10_000), samples.output()).toBe(true);
    expect(samples.output()).toContain(`POST /hook (signature valid): ${body}`);
    expect(samples.output()).toContain(
      `POST /hook (signature INVALID: not made with this WEBHOOK_SECRET): ${body}`,
    );
  });

  it('says in one line that its port is taken, without a stack trace', async () => {
    const port = new URL(url).port;
    const second = runSamples({ SAMPLES_PORT: port, LOCAL_STATE_DIR: state });
    started.push(second.child);
    const [code] = (await once(second.child, 'exit')) as [number | null];
    expect(code).not.toBe(0);
    const said = second.output();
    expect(said).toContain(
      `npm run samples: port ${port} on 127.0.0.1 is already in use (an earlier npm run samples?): stop the process that holds it, or set SAMPLES_PORT to another port (0 picks a free one).`,
    );
    expect(said).not.toMatch(/EADDRINUSE|\n\s+at |node:internal/);
  }, 120_000);

  it('ends, port and all, when npm is killed', async () => {
    const tree = descendants(samples.child.pid);
    const server = tree.find((pid) => commandLine(pid)?.includes('scripts/samples.ts'));
    expect(server).toBeDefined();
    samples.child.kill('SIGTERM');
    // npm's shell does not pass SIGTERM on: the server sees its parent go and stops by itself.
    expect(await waitFor(() => !isRunning(server!), 20_000)).toBe(true);
    await expect(fetch(`${url}/photo.jpg`)).rejects.toThrow();
  }, 60_000);
});
