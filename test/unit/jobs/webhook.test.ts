import { createHmac } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWebhook, signBody } from '#shared/jobs/webhook.ts';
import { FixtureServer } from '../../support/fixture-server.ts';

describe('signed webhooks', () => {
  const server = new FixtureServer();
  const received: { body: string; signature: string | undefined }[] = [];
  let failuresLeft = 0;

  beforeAll(async () => {
    await server.start();
    server.route('/hook', async (request, response) => {
      received.push({
        body: (await buffer(request)).toString(),
        signature: request.headers['x-signature'] as string,
      });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        response.writeHead(503).end();
      } else {
        response.writeHead(204).end();
      }
    });
    server.route('/moved', (_request, response) => response.writeHead(302, { Location: '/hook' }).end());
  });
  afterAll(() => server.stop());

  it('signs the raw body with HMAC-SHA256 so a receiver can verify it', async () => {
    received.length = 0;
    const outcome = await deliverWebhook(
      server.url('/hook'),
      { jobId: 'j1', status: 'succeeded' },
      {
        secret: 'a-webhook-secret-of-some-length',
        retryDelaysMs: [],
        allowPrivate: true,
      },
    );
    expect(outcome).toEqual({ attempts: 1, delivered: true, lastStatus: 204 });
    const [delivery] = received;
    const expected = createHmac('sha256', 'a-webhook-secret-of-some-length')
      .update(delivery!.body)
      .digest('hex');
    expect(delivery?.signature).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivery!.body)).toEqual({ jobId: 'j1', status: 'succeeded' });
  });

  it('retries with backoff until the receiver accepts', async () => {
    received.length = 0;
    failuresLeft = 2;
    const outcome = await deliverWebhook(
      server.url('/hook'),
      { n: 1 },
      { secret: 's'.repeat(20), retryDelaysMs: [10, 10, 10], allowPrivate: true },
    );
    expect(outcome).toEqual({ attempts: 3, delivered: true, lastStatus: 204 });
    expect(received).toHaveLength(3);
  });

  it('gives up after the last retry and does not follow redirects', async () => {
    const moved = await deliverWebhook(
      server.url('/moved'),
      {},
      { secret: 's'.repeat(20), retryDelaysMs: [5], allowPrivate: true },
    );
    expect(moved).toEqual({ attempts: 2, delivered: false, lastStatus: 302 });
  });

  it('never calls a private address unless allowed', async () => {
    received.length = 0;
    const outcome = await deliverWebhook(
      server.url('/hook'),
      {},
      { secret: 's'.repeat(20), retryDelaysMs: [], allowPrivate: false },
    );
    expect(outcome.delivered).toBe(false);
    expect(received).toHaveLength(0);
  });

  it('retries only while the deadline leaves time for the pause and an attempt', async () => {
    received.length = 0;
    failuresLeft = 10;
    // The second pause would outlast the function that delivers: it is not taken.
    const outcome = await deliverWebhook(
      server.url('/hook'),
      {},
      {
        secret: 's'.repeat(20),
        retryDelaysMs: [20, 600_000],
        allowPrivate: true,
        deadline: Date.now() + 5000,
      },
    );
    failuresLeft = 0;
    expect(outcome).toEqual({ attempts: 2, delivered: false, lastStatus: 503 });
    expect(received).toHaveLength(2);
  });

  it('makes no attempt when the deadline is too close for one', async () => {
    received.length = 0;
    const outcome = await deliverWebhook(
      server.url('/hook'),
      {},
      { secret: 's'.repeat(20), retryDelaysMs: [20], allowPrivate: true, deadline: Date.now() + 100 },
    );
    expect(outcome).toEqual({ attempts: 0, delivered: false });
    expect(received).toHaveLength(0);
  });

  it('produces the documented header format', () => {
    expect(signBody('{}', 'k')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
