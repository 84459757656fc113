import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsService } from '#shared/metrics.ts';
import { emfDirectives, metricsByDimensions } from '../support/emf.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson } from '../support/gateway.ts';

/**
 * The local gateway runs the same handlers as Lambda, so its log shows the same request lines,
 * metrics (embedded metric format) included: what CloudWatch would turn into metrics can be read
 * without AWS.
 */
type Line = Record<string, unknown>;

const fixtures = new FixtureServer();
const lines: Line[] = [];
let child: ChildProcess;
let url: string;
const pro = { 'x-api-key': 'pro-key' };

/** Starts the gateway as `npm start` does, with its log on, and keeps every line it writes. */
async function startGatewayWithLog(): Promise<void> {
  child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', 'infra/local/start.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      API_KEYS: 'pro-key:pro',
      SOURCE_ALLOW_PRIVATE: 'true',
      WEBHOOK_SECRET: 'webhook-secret-for-the-metrics-test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const text of complete) {
      output += `${text}\n`;
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        // The start-up banner is prose.
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let waited = 0; !url; waited += 50) {
    const found = /Listening on (http:\/\/\S+)/.exec(output);
    if (found?.[1]) url = found[1];
    else if (waited > 30_000 || child.exitCode !== null) throw new Error(`gateway did not start: ${output}`);
    else await sleep(50);
  }
}

beforeAll(async () => {
  await fixtures.start();
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3060c0' } })
    .png()
    .toBuffer();
  fixtures.serve('/blue.png', png, 'image/png');
  fixtures.route('/hook', (_request, response) => response.writeHead(200).end());
  await startGatewayWithLog();
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await fixtures.stop();
});

/** The request line of an answer, found by its request id once the gateway has written it. */
async function lineOf(response: Response): Promise<Line> {
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  for (let waited = 0; waited < 10_000; waited += 25) {
    const line = lines.find(
      (candidate) => candidate.message === 'request' && candidate.requestId === requestId,
    );
    if (line) return line;
    await sleep(25);
  }
  throw new Error(`no request line for ${requestId} among ${lines.length} lines`);
}

describe('metrics in the local gateway log', () => {
  it('for every request a handler answers: JSON, file, errors and GET routes alike', async () => {
    const answers = [
      { response: await postJson(`${url}/slugify`, { text: 'Hello World' }), route: 'slugify' },
      { response: await postJson(`${url}/slugify`, { text: 3 }), route: 'slugify' },
      { response: await postJson(`${url}/hash`, '{"text":', pro), route: 'hash' },
      { response: await fetch(`${url}/status`), route: 'status' },
      { response: await fetch(`${url}/jobs/not-a-job`, { headers: pro }), route: 'jobs' },
      {
        response: await postJson(`${url}/checksum`, { sourceUrl: fixtures.url('/blue.png') }, pro),
        route: 'checksum',
      },
      {
        response: await postJson(`${url}/image-convert`, {
          sourceUrl: fixtures.url('/blue.png'),
          outputFormat: 'webp',
        }),
        route: 'image-convert',
      },
    ];
    for (const { response, route } of answers) {
      const body = Buffer.from(await response.arrayBuffer());
      const line = await lineOf(response);
      const status = response.status;
      expect(line, route).toMatchObject({
        route,
        status,
        Requests: 1,
        Responses4xx: status >= 400 && status < 500 ? 1 : 0,
        Responses5xx: status >= 500 ? 1 : 0,
        BytesOut: body.length,
        service: metricsService,
      });
      expect(typeof line.Duration, route).toBe('number');
      expect(metricsByDimensions(line).Requests, route).toContain('service,route,tier');
      if (status >= 400) {
        expect(line.errorCode, route).toBe((JSON.parse(body.toString()) as { error: string }).error);
        expect(metricsByDimensions(line).Requests, route).toContain('service,route,errorCode');
      }
    }
    const [ok, invalid, broken, status, missingJob, checksum, converted] = answers.map(
      (a) => a.response.status,
    );
    expect([ok, invalid, broken, status, missingJob, checksum, converted]).toEqual([
      200, 400, 400, 200, 404, 200, 200,
    ]);
  });

  it('with the tier, the bytes in, and the engine, download and upload times of a file route', async () => {
    const body = { sourceUrl: fixtures.url('/blue.png'), outputFormat: 'png' };
    const response = await postJson(`${url}/image-resize`, { ...body, width: 20 }, pro);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const line = await lineOf(response);
    expect(line).toMatchObject({
      tier: 'pro',
      BytesIn: Buffer.byteLength(JSON.stringify({ ...body, width: 20 })),
    });
    for (const field of ['EngineTime', 'engineMs', 'downloadMs', 'uploadMs']) {
      expect(typeof line[field], field).toBe('number');
    }
  });

  it('for a finished async job, on the worker line that reports it', async () => {
    const accepted = await postJson(
      `${url}/image-convert`,
      { sourceUrl: fixtures.url('/blue.png'), outputFormat: 'jpg', callbackUrl: fixtures.url('/hook') },
      pro,
    );
    expect(accepted.status).toBe(202);
    const { jobId } = (await accepted.json()) as { jobId: string };
    let finished: Line | undefined;
    for (let waited = 0; !finished && waited < 30_000; waited += 50) {
      finished = lines.find((line) => line.message === 'job finished' && line.jobId === jobId);
      if (!finished) await sleep(50);
    }
    expect(finished).toMatchObject({
      route: 'image-convert',
      status: 'succeeded',
      Jobs: 1,
      JobsFailed: 0,
      JobsFailedInternal: 0,
      WebhooksUndelivered: 0,
    });
    expect(emfDirectives(finished!)[0]!.Dimensions).toEqual([['service', 'route'], ['service']]);
    expect(typeof finished!.engineMs).toBe('number');
    expect(typeof finished!.uploadMs).toBe('number');
  });
});
