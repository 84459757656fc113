import { execFile } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * `outputUrl` and `Idempotency-Key` through the shared local gateway over real HTTP (loopback
 * destinations are allowed there): results PUT to a destination that takes them, one that refuses
 * and one that redirects; and the round trip a client without a public URL makes: upload, convert
 * as a job whose result goes to its own bucket, retried safely. Images are made and read back by
 * ImageMagick.
 */

const run = promisify(execFile);
const destination = new FixtureServer();
let gateway: RunningGateway;
let png: Buffer;

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  method: string;
  body: Buffer;
}
const received: Received[] = [];
type JobView = { jobId: string; status: string } & Record<string, unknown>;
const webhooks: JobView[] = [];
let webhookArrived: (view: JobView) => void = () => {};

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': SHARED_KEYS.pro, ...headers });

async function identify(bytes: Buffer): Promise<string> {
  const child = execFile('identify', ['-format', '%m %w %h', '-']);
  const out = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', () => resolve(text.trim()));
  });
  child.stdin?.end(bytes);
  return out;
}

beforeAll(async () => {
  gateway = sharedGateway();
  png = (await run('convert', ['-size', '40x30', 'xc:blue', 'png:-'], { encoding: 'buffer' })).stdout;
  await destination.start();
  destination.serve('/blue.png', png, 'image/png');
  for (const [path, status] of [
    ['/bucket/out.jpg', 200],
    ['/bucket/job.webp', 200],
    ['/refuse', 403],
    ['/followed', 200],
  ] as const) {
    destination.route(path, async (request, response) => {
      received.push({
        path,
        headers: request.headers,
        method: request.method ?? '',
        body: await buffer(request),
      });
      response.writeHead(status, { 'Content-Type': 'application/xml' }).end(status === 200 ? '' : '<Error/>');
    });
  }
  destination.route('/redirect', (request, response) => {
    request.resume();
    response.writeHead(302, { Location: destination.url('/followed') }).end();
  });
  destination.route('/hook', async (request, response) => {
    const view = JSON.parse((await buffer(request)).toString()) as JobView;
    webhooks.push(view);
    webhookArrived(view);
    response.writeHead(200).end();
  });
}, 60_000);

afterAll(async () => {
  await destination.stop();
});

describe('outputUrl', () => {
  it('PUTs the result with its Content-Type and Content-Length, and answers where it went', async () => {
    const answer = await post('/image-convert', {
      sourceUrl: destination.url('/blue.png'),
      outputFormat: 'jpg',
      outputUrl: destination.url('/bucket/out.jpg?X-Amz-Signature=secret&X-Amz-Expires=60'),
    });
    expect(answer.status).toBe(200);
    const sent = await answer.json();
    const put = received.find((entry) => entry.path === '/bucket/out.jpg')!;
    expect(put.method).toBe('PUT');
    expect(put.headers['content-type']).toBe('image/jpeg');
    expect(Number(put.headers['content-length'])).toBe(put.body.length);
    expect(sent).toEqual({
      outputUrl: destination.url('/bucket/out.jpg'),
      sizeBytes: put.body.length,
      contentType: 'image/jpeg',
    });
    expect(await identify(put.body)).toBe('JPEG 40 30');
  });

  it('answers 502 output_upload_failed quoting a refusal, and does not follow a redirect', async () => {
    for (const [path, quoted] of [
      ['/refuse', 'HTTP 403 Forbidden'],
      ['/redirect', 'HTTP 302 Found'],
    ]) {
      const answer = await post('/image-convert', {
        sourceUrl: destination.url('/blue.png'),
        outputFormat: 'png',
        outputUrl: destination.url(path!),
      });
      expect(answer.status, path).toBe(502);
      expect(await answer.json(), path).toEqual({
        error: 'output_upload_failed',
        message: expect.stringContaining(quoted!),
      });
    }
    expect(received.filter((entry) => entry.path === '/followed')).toEqual([]);
  });

  it('is for paid keys', async () => {
    const answer = await postJson(`${gateway.url}/image-convert`, {
      sourceUrl: destination.url('/blue.png'),
      outputFormat: 'png',
      outputUrl: destination.url('/bucket/out.jpg'),
    });
    expect(answer.status).toBe(401);
    expect((await answer.json()).error).toBe('missing_api_key');
  });
});

describe('upload → convert as a job → export, with Idempotency-Key', () => {
  it('sends the job result to outputUrl once, however often the request is retried', async () => {
    // 1. Ask for an upload and PUT the file.
    const ticketAnswer = await post('/uploads', { filename: 'blue.png', sizeBytes: png.length });
    expect(ticketAnswer.status).toBe(201);
    const ticket = await ticketAnswer.json();
    expect(
      (await fetch(ticket.uploadUrl, { method: 'PUT', headers: ticket.headers, body: new Uint8Array(png) }))
        .status,
    ).toBe(200);

    // 2. Convert it as a job whose result goes to outputUrl, with an Idempotency-Key, and retry it.
    const body = {
      sourceUrl: ticket.sourceUrl,
      outputFormat: 'webp',
      callbackUrl: destination.url('/hook'),
      outputUrl: destination.url('/bucket/job.webp?sig=1'),
    };
    const key = { 'Idempotency-Key': `blue-${Date.now()}` };
    const done = new Promise<JobView>((resolve) => {
      webhookArrived = resolve;
    });
    const first = await post('/image-convert', body, key);
    expect(first.status).toBe(202);
    const { jobId } = await first.json();
    const again = await post('/image-convert', body, key);
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ jobId, status: 'queued', statusUrl: `/jobs/${jobId}` });
    // The same key with another body is refused.
    const reused = await post('/image-convert', { ...body, outputFormat: 'png' }, key);
    expect(reused.status).toBe(422);
    expect((await reused.json()).error).toBe('idempotency_key_reused');

    // 3. The result arrives at outputUrl, and the job (as its webhook shows it) says so.
    const finished = await done;
    const puts = received.filter((entry) => entry.path === '/bucket/job.webp');
    expect(puts).toHaveLength(1);
    expect(finished).toEqual({
      jobId,
      status: 'succeeded',
      progress: 100,
      createdAt: expect.any(String),
      finishedAt: expect.any(String),
      output: {
        outputUrl: destination.url('/bucket/job.webp'),
        sizeBytes: puts[0]!.body.length,
        contentType: 'image/webp',
      },
    });
    expect(await identify(puts[0]!.body)).toBe('WEBP 40 30');
    expect(webhooks.filter((hook) => hook.jobId === jobId)).toHaveLength(1);
  });

  it('refuses a malformed Idempotency-Key, naming the header', async () => {
    for (const bad of ['has space', 'x'.repeat(256), 'é']) {
      const answer = await post(
        '/image-convert',
        {
          sourceUrl: destination.url('/blue.png'),
          outputFormat: 'png',
          callbackUrl: destination.url('/hook'),
        },
        { 'Idempotency-Key': bad },
      );
      expect(answer.status, bad).toBe(400);
      expect(await answer.json(), bad).toEqual({
        error: 'validation_failed',
        message: expect.stringContaining('Idempotency-Key'),
      });
    }
  });
});
