import type { IncomingHttpHeaders } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbackUrlField } from '#shared/jobs/callback.ts';
import { deliverWebhook } from '#shared/jobs/webhook.ts';
import { FixtureServer } from '../../support/fixture-server.ts';

/**
 * The edges of webhook delivery: which statuses count as delivered, what a failed connection after
 * a refused attempt leaves in the outcome, the headers that go out, and a pause the deadline does
 * not leave room for. Each receiver answers from a script the test sets.
 */
const server = new FixtureServer();
let script: Array<number | 'drop'> = [];
let seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  await server.start();
  server.route('/hook', async (request, response) => {
    seen.push(request.headers);
    await buffer(request);
    const next = script.shift() ?? 204;
    if (next === 'drop') request.socket.destroy();
    else response.writeHead(next).end();
  });
});
afterAll(() => server.stop());
beforeEach(() => {
  script = [];
  seen = [];
});

const deliver = (retryDelaysMs: number[], deadline?: number) =>
  deliverWebhook(
    server.url('/hook'),
    { jobId: 'j1', status: 'succeeded' },
    { secret: 'a-webhook-secret-of-some-length', retryDelaysMs, allowPrivate: true, deadline },
  );

describe('what counts as delivered', () => {
  it('200 at the first attempt', async () => {
    script = [200];
    expect(await deliver([1, 1])).toEqual({ attempts: 1, delivered: true, lastStatus: 200 });
  });

  it('not a 300, nor a 500: retried, and the last answer reported', async () => {
    script = [300, 500, 299];
    expect(await deliver([1, 1])).toEqual({ attempts: 3, delivered: true, lastStatus: 299 });
    script = [300, 300];
    expect(await deliver([1])).toEqual({ attempts: 2, delivered: false, lastStatus: 300 });
  });

  it('a connection that fails at the last attempt leaves no status from an earlier one', async () => {
    script = [500, 'drop'];
    const outcome = await deliver([1]);
    expect(outcome).toEqual({ attempts: 2, delivered: false });
    expect(outcome).not.toHaveProperty('lastStatus');
  });
});

describe('the request that goes out', () => {
  it('is JSON, names the sender and carries the signature', async () => {
    await deliver([]);
    expect(seen[0]).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'file-conversion-api-webhook',
    });
    expect(seen[0]?.['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe('the deadline', () => {
  it('no pause is started that would run past it: a failed attempt with a long pause ahead ends the delivery', async () => {
    script = [503];
    const outcome = await deliver([600_000], Date.now() + 20_000);
    expect(outcome).toEqual({ attempts: 1, delivered: false, lastStatus: 503 });
  });
});

describe('the callbackUrl field', () => {
  it('tells a client which tiers run async jobs, that it must be https and how it is signed', () => {
    expect(callbackUrlField.description).toBe(
      'Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.',
    );
  });
});
