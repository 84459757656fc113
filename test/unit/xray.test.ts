import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The stages of a request as X-Ray subsegments: in a process set up as Lambda sets one up with
 * active tracing, the real X-Ray SDK (through Powertools Tracer) sends them to the daemon's address,
 * here a UDP socket of the test; without a daemon nothing is loaded.
 */
const run = promisify(execFile);

/** Runs a request's stages in a fresh process and reports whether the X-Ray SDK was loaded. */
const script = `
  import { createRequire } from 'node:module';
  await import('#shared/xray.ts');
  const { measureStages, stage } = await import('#shared/stages.ts');
  const times = {};
  const result = await measureStages(times, () =>
    stage('engine', async () => {
      await stage('download', () => new Promise((resolve) => setTimeout(resolve, 20)));
      return 'converted';
    }),
  );
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('aws-xray-sdk-core'));
  console.log(JSON.stringify({ result, stages: Object.keys(times).sort(), loaded }));
  setTimeout(() => process.exit(0), 200);
`;

async function runStages(env: Record<string, string>) {
  const { stdout } = await run(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--input-type=module', '--eval', script],
    { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, encoding: 'utf8' },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    result: string;
    stages: string[];
    loaded: boolean;
  };
}

describe('X-Ray subsegments of the request stages', () => {
  const daemon = createSocket('udp4');
  const documents: Record<string, unknown>[] = [];
  beforeAll(async () => {
    daemon.on('message', (message) => {
      // Each datagram is a header line, then one segment document.
      const [, body] = message.toString().split('\n');
      if (body) documents.push(JSON.parse(body) as Record<string, unknown>);
    });
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  });
  afterAll(() => daemon.close());

  it('in Lambda with active tracing: engine and download subsegments of the invocation, download inside engine', async () => {
    const traceId = '1-6745a1b2-0123456789abcdef01234567';
    const { port } = daemon.address() as AddressInfo;
    const answer = await runStages({
      AWS_LAMBDA_FUNCTION_NAME: 'image-convert',
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      LAMBDA_TASK_ROOT: '/var/task',
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      _X_AMZN_TRACE_ID: `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`,
    });
    expect(answer).toEqual({ result: 'converted', stages: ['download', 'engine'], loaded: true });
    for (let waited = 0; documents.length < 2 && waited < 2000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const byName = Object.fromEntries(documents.map((doc) => [doc.name, doc]));
    expect(Object.keys(byName).sort()).toEqual(['download', 'engine']);
    expect(byName.engine).toMatchObject({
      trace_id: traceId,
      parent_id: '53995c3f42cd8ad8',
      type: 'subsegment',
    });
    expect(byName.download).toMatchObject({ trace_id: traceId, parent_id: byName.engine!.id });
    const span = (doc: Record<string, unknown>) => (doc.end_time as number) - (doc.start_time as number);
    expect(span(byName.engine!)).toBeGreaterThanOrEqual(span(byName.download!));
  });

  it('without a daemon (tests, the local gateway): stages are only timed, the SDK is never loaded', async () => {
    const received = documents.length;
    expect(await runStages({})).toEqual({
      result: 'converted',
      stages: ['download', 'engine'],
      loaded: false,
    });
    expect(documents.length).toBe(received);
  });
});
