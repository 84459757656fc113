import { createHmac } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';

/**
 * `LOCAL_ISOLATION=in-process` runs the handlers in the gateway's own process, and an async job's
 * second invocation there too (infra/local/run-apart.ts). The job tests in jobs.test.ts use the
 * worker processes `npm start` runs by default; this one takes the other path, end to end.
 */

const WEBHOOK_SECRET = 'webhook-secret-for-the-in-process-job';
const pro = { 'x-api-key': 'pro-key' };

describe('an async job with the handlers in the gateway process', () => {
  let gateway: RunningGateway;
  const fixtures = new FixtureServer();
  const deliveries: Array<{ body: string; signature: string | undefined }> = [];

  beforeAll(async () => {
    await fixtures.start();
    const png = await sharp({ create: { width: 24, height: 16, channels: 3, background: '#2050c0' } })
      .png()
      .toBuffer();
    fixtures.serve('/blue.png', png, 'image/png');
    fixtures.route('/hook', async (request, response) => {
      deliveries.push({
        body: (await buffer(request)).toString(),
        signature: request.headers['x-signature'] as string | undefined,
      });
      response.writeHead(200).end();
    });
    gateway = await startLocalGateway({
      LOCAL_ISOLATION: 'in-process',
      API_KEYS: 'pro-key:pro',
      WEBHOOK_SECRET,
      SOURCE_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await fixtures.stop();
  });

  it('answers 202, converts apart, stores the result and calls back signed', async () => {
    const response = await postJson(
      `${gateway.url}/image-convert`,
      { sourceUrl: fixtures.url('/blue.png'), outputFormat: 'webp', callbackUrl: fixtures.url('/hook') },
      pro,
    );
    expect(response.status).toBe(202);
    const { jobId, statusUrl } = (await response.json()) as { jobId: string; statusUrl: string };

    const delivery = await vi.waitFor(
      () => {
        const found = deliveries.find((d) => d.body.includes(jobId));
        if (!found) throw new Error(`no webhook for job ${jobId} yet`);
        return found;
      },
      { timeout: 20_000, interval: 100 },
    );
    const expected = createHmac('sha256', WEBHOOK_SECRET).update(delivery.body).digest('hex');
    expect(delivery.signature).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivery.body)).toMatchObject({ jobId, status: 'succeeded', progress: 100 });

    const job = (await (await fetch(`${gateway.url}${statusUrl}`, { headers: pro })).json()) as {
      status: string;
      resultUrl: string;
    };
    expect(job.status).toBe('succeeded');
    const result = await fetch(job.resultUrl);
    expect(result.status).toBe(200);
    const meta = await sharp(Buffer.from(await result.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 24, height: 16 });
  });
});
