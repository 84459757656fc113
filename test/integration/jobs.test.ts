import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyId } from '#shared/auth/keys.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';
import { MediaFixtures, probe } from '../unit/media/fixtures.ts';

const WEBHOOK_SECRET = 'webhook-secret-for-the-job-tests';
/** The embedded S3 server's secret, so that a test can write job records of its own. */
const S3_SECRET = 's3-secret-for-the-job-tests';
const pro = { 'x-api-key': 'pro-key' };
/** A key of its own, with room for polls a few times a second. */
const poller = { 'x-api-key': 'poller-key' };

interface Delivery {
  path: string;
  body: string;
  signature: string | undefined;
  /** What the hook answered. */
  status: number;
}

describe('async jobs through the local gateway, S3 server and webhooks', () => {
  let gateway: RunningGateway;
  const fixtures = new FixtureServer();
  const media = new MediaFixtures();
  const deliveries: Delivery[] = [];
  let flakyFailures = 1;

  beforeAll(async () => {
    await fixtures.start();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c03030' } })
      .png()
      .toBuffer();
    fixtures.serve('/red.png', png, 'image/png');
    // 10 s of a small picture, cheap to make; scaled up to 720p VP9, its conversion lasts long
    // enough (seconds; ffmpeg reports progress every half second) for polls to see it running.
    await media.open();
    const clip = await media.save('clip.mp4', '');
    await promisify(execFile)(referenceFfmpeg, [
      ...['-v', 'error', '-nostdin', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25:duration=10'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10', '-c:v', 'libx264', '-preset', 'ultrafast'],
      ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-f', 'mp4', clip],
    ]);
    fixtures.serve('/clip.mp4', await readFile(clip), 'video/mp4');
    const record = (path: string, status: () => number) =>
      fixtures.route(path, async (request, response) => {
        const body = (await buffer(request)).toString();
        const answered = status();
        deliveries.push({
          path,
          body,
          signature: request.headers['x-signature'] as string,
          status: answered,
        });
        response.writeHead(answered).end();
      });
    record('/hook', () => 200);
    record('/flaky-hook', () => (flakyFailures-- > 0 ? 500 : 200));
    gateway = await startLocalGateway({
      API_KEYS: 'pro-key:pro,other-key:pro,free-key:free,poller-key:enterprise:100000',
      WEBHOOK_SECRET,
      WEBHOOK_RETRY_DELAYS_MS: '50,50',
      SOURCE_ALLOW_PRIVATE: 'true',
      S3_SECRET,
    });
  });
  // The flaky hook fails once for each test, whichever test runs first or alone.
  beforeEach(() => {
    flakyFailures = 1;
  });
  afterAll(async () => {
    await gateway.stop();
    await fixtures.stop();
    await media.close();
  });

  const waitFor = async <T>(probe: () => Promise<T | undefined>, what: string): Promise<T> => {
    for (let i = 0; i < 200; i += 1) {
      const found = await probe();
      if (found !== undefined) return found;
      await sleep(100);
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  const finishedJob = (statusUrl: string, headers = pro) =>
    waitFor(async () => {
      const job = (await (await fetch(`${gateway.url}${statusUrl}`, { headers })).json()) as Record<
        string,
        unknown
      >;
      return job.status === 'succeeded' || job.status === 'failed' ? job : undefined;
    }, 'the job to finish');

  it('answers 202 at once, runs the conversion apart, stores the result and calls back signed', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: fixtures.url('/red.png'), outputFormat: 'webp', callbackUrl: fixtures.url('/hook') },
      pro,
    );
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { jobId: string; status: string; statusUrl: string };
    expect(accepted.status).toBe('queued');
    expect(accepted.jobId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(accepted.statusUrl).toBe(`/jobs/${accepted.jobId}`);

    const job = await finishedJob(accepted.statusUrl);
    expect(job).toMatchObject({ jobId: accepted.jobId, status: 'succeeded', progress: 100 });
    expect(Date.parse(job.finishedAt as string)).toBeGreaterThanOrEqual(Date.parse(job.createdAt as string));

    const result = await fetch(job.resultUrl as string);
    expect(result.status).toBe(200);
    const meta = await sharp(Buffer.from(await result.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 40, height: 30 });

    const delivery = await waitFor(
      async () => deliveries.find((d) => d.body.includes(accepted.jobId)),
      'the webhook',
    );
    const expected = createHmac('sha256', WEBHOOK_SECRET).update(delivery.body).digest('hex');
    expect(delivery.signature).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivery.body)).toMatchObject({
      jobId: accepted.jobId,
      status: 'succeeded',
      progress: 100,
    });
  });

  it('runs a real video conversion, showing its progress while it runs, and stores a playable result', async () => {
    const response = await postJson(
      `${gateway.url}/video-convert`,
      {
        sourceUrl: fixtures.url('/clip.mp4'),
        outputFormat: 'webm',
        width: 1280,
        callbackUrl: fixtures.url('/hook'),
      },
      poller,
    );
    expect(response.status).toBe(202);
    const { jobId, statusUrl } = (await response.json()) as { jobId: string; statusUrl: string };

    const polls: Array<{ status: string; progress: number }> = [];
    let job: Record<string, unknown> = {};
    for (let poll = 0; poll < 3000 && job.status !== 'succeeded' && job.status !== 'failed'; poll += 1) {
      job = (await (await fetch(`${gateway.url}${statusUrl}`, { headers: poller })).json()) as Record<
        string,
        unknown
      >;
      polls.push({ status: String(job.status), progress: Number(job.progress) });
      await sleep(30);
    }

    expect(job, JSON.stringify(job.error)).toMatchObject({ jobId, status: 'succeeded', progress: 100 });
    const running = polls.filter((poll) => poll.status === 'running');
    expect(running.some((poll) => poll.progress > 0 && poll.progress < 100)).toBe(true);
    for (const { progress } of polls) {
      expect(progress).toBeGreaterThanOrEqual(0);
      expect(progress).toBeLessThanOrEqual(100);
    }
    const seen = polls.map((poll) => poll.progress);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));

    const result = await fetch(job.resultUrl as string);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('video/webm');
    const probed = await probe(await media.save('result.webm', Buffer.from(await result.arrayBuffer())));
    expect(probed.formatName).toBe('matroska,webm');
    expect(probed.video).toMatchObject({ codec_name: 'vp9', width: 1280, height: 720 });
    expect(probed.audio?.codec_name).toBe('opus');
    expect(Math.abs(probed.duration - 10)).toBeLessThan(0.5);

    const delivery = await waitFor(async () => deliveries.find((d) => d.body.includes(jobId)), 'the webhook');
    expect(JSON.parse(delivery.body)).toMatchObject({ jobId, status: 'succeeded', progress: 100 });
  }, 120_000);

  it('lets only the creating key read a job', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: fixtures.url('/red.png'), outputFormat: 'png', callbackUrl: fixtures.url('/hook') },
      pro,
    );
    const { statusUrl } = (await response.json()) as { statusUrl: string };
    const other = await fetch(`${gateway.url}${statusUrl}`, { headers: { 'x-api-key': 'other-key' } });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not_found' });
    const anonymous = await fetch(`${gateway.url}${statusUrl}`);
    expect(anonymous.status).toBe(401);
    expect((await fetch(`${gateway.url}/jobs/not-a-job-id`, { headers: pro })).status).toBe(404);
    await finishedJob(statusUrl);
  });

  it('records a failing conversion as failed, with the error, and still calls back', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: fixtures.url('/missing.png'), outputFormat: 'png', callbackUrl: fixtures.url('/hook') },
      pro,
    );
    const { jobId, statusUrl } = (await response.json()) as { jobId: string; statusUrl: string };
    const job = await finishedJob(statusUrl);
    expect(job).toMatchObject({ status: 'failed', error: { error: 'source_bad_status' } });
    expect(job.resultUrl).toBeUndefined();
    const delivery = await waitFor(async () => deliveries.find((d) => d.body.includes(jobId)), 'the webhook');
    expect(JSON.parse(delivery.body)).toMatchObject({ status: 'failed' });
  });

  it('retries a webhook that answered 500, sending the same signed body again until it is taken', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: fixtures.url('/red.png'), outputFormat: 'jpg', callbackUrl: fixtures.url('/flaky-hook') },
      pro,
    );
    const { jobId } = (await response.json()) as { jobId: string };
    const tries = await waitFor(async () => {
      const found = deliveries.filter((d) => d.path === '/flaky-hook' && d.body.includes(jobId));
      return found.length >= 2 ? found : undefined;
    }, 'the retried webhook');
    const [first, second] = tries;
    expect(tries.map((attempt) => attempt.status)).toEqual([500, 200]);
    expect(second?.body).toBe(first?.body);
    const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET)
      .update(first?.body ?? '')
      .digest('hex')}`;
    expect([first?.signature, second?.signature]).toEqual([signature, signature]);
    expect(JSON.parse(second?.body ?? '{}')).toMatchObject({ jobId, status: 'succeeded' });
  });

  it('refuses async jobs to anonymous and free callers, and bad callback URLs', async () => {
    const body = {
      sourceUrl: fixtures.url('/red.png'),
      outputFormat: 'png',
      callbackUrl: fixtures.url('/hook'),
    };
    const anonymous = await postJson(`${gateway.url}/image-convert`, body);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'missing_api_key' });
    const free = await postJson(`${gateway.url}/image-convert`, body, { 'x-api-key': 'free-key' });
    expect(free.status).toBe(403);
    expect(await free.json()).toMatchObject({ error: 'insufficient_permissions' });
    const badUrl = await postJson(
      `${gateway.url}/image-convert`,
      { ...body, callbackUrl: 'ftp://example.org/x' },
      pro,
    );
    expect(badUrl.status).toBe(400);
    expect(await badUrl.json()).toMatchObject({ error: 'source_invalid_url' });
  });

  it('treats a job older than 24 h as gone', async () => {
    const s3 = new S3Client({
      endpoint: gateway.s3Endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: S3_SECRET },
    });
    const store = (jobId: string, hoursAgo: number) =>
      s3.send(
        new PutObjectCommand({
          Bucket: 'jobs',
          Key: `jobs/${jobId}.json`,
          Body: JSON.stringify({
            jobId,
            status: 'failed',
            progress: 0,
            createdAt: new Date(Date.now() - hoursAgo * 3600 * 1000).toISOString(),
            owner: keyId('pro-key'),
          }),
        }),
      );
    await store('fresh-job-fresh-job-0000', 23);
    await store('stale-job-stale-job-0000', 25);
    expect((await fetch(`${gateway.url}/jobs/fresh-job-fresh-job-0000`, { headers: pro })).status).toBe(200);
    expect((await fetch(`${gateway.url}/jobs/stale-job-stale-job-0000`, { headers: pro })).status).toBe(404);
  });
});
