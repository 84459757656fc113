import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';

const key = { 'x-api-key': 'restart-key' };
const settings = { API_KEYS: 'restart-key:pro', SOURCE_ALLOW_PRIVATE: 'true', SOURCE_TIMEOUT_MS: '120000' };

interface JobView {
  jobId: string;
  status: string;
  resultUrl?: string;
  error?: { error: string; message: string };
}

/**
 * `npm start` stopped and started again on the same machine: the jobs it kept (in its state
 * folder, not a temporary one) are still there, and a job that was running when it stopped is
 * failed with the reason, its webhook sent, signed with the secret the first start printed and kept.
 */
describe('the local gateway restarted', () => {
  const fixtures = new FixtureServer();
  const hooks: Array<{ body: string; signature: string | undefined }> = [];
  let state: string;
  let first: RunningGateway | undefined;
  let second: RunningGateway | undefined;

  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'restart-state-'));
    await fixtures.start();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3060c0' } })
      .png()
      .toBuffer();
    fixtures.serve('/blue.png', png, 'image/png');
    // A source that never answers: its job stays running until the gateway stops.
    fixtures.route('/never.png', () => {});
    fixtures.route('/hook', async (request, response) => {
      hooks.push({
        body: (await buffer(request)).toString(),
        signature: request.headers['x-signature'] as string,
      });
      response.writeHead(204).end();
    });
  });

  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await fixtures.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  const job = async (gateway: RunningGateway, jobId: string) =>
    (await (await fetch(`${gateway.url}/jobs/${jobId}`, { headers: key })).json()) as JobView;

  it('keeps finished jobs, fails the running one with the reason, and keeps the webhook secret', async () => {
    first = await startLocalGateway({ ...settings, LOCAL_STATE_DIR: state });
    const printed = /WEBHOOK_SECRET=([0-9a-f]{64}) \(generated for this machine, kept in (\S+);/.exec(
      first.output(),
    );
    expect(printed, first.output()).not.toBeNull();
    const secret = printed![1]!;
    expect(printed![2]).toBe(join(state, 'webhook-secret'));
    expect((await readFile(join(state, 'webhook-secret'), 'utf8')).trim()).toBe(secret);
    expect(first.output()).toContain(`Jobs and their results are kept in ${join(state, 's3')}`);

    const callbackUrl = fixtures.url('/hook');
    const done = (await (
      await postJson(
        `${first.url}/image-convert`,
        { sourceUrl: fixtures.url('/blue.png'), outputFormat: 'webp', callbackUrl },
        key,
      )
    ).json()) as JobView;
    const stuck = (await (
      await postJson(
        `${first.url}/image-convert`,
        { sourceUrl: fixtures.url('/never.png'), outputFormat: 'webp', callbackUrl },
        key,
      )
    ).json()) as JobView;
    const gateway = first;
    await vi.waitFor(async () => expect((await job(gateway, done.jobId)).status).toBe('succeeded'), {
      timeout: 60_000,
      interval: 500,
    });
    await vi.waitFor(async () => expect((await job(gateway, stuck.jobId)).status).toBe('running'), {
      timeout: 60_000,
      interval: 500,
    });
    await first.stop();
    first = undefined;

    second = await startLocalGateway({ ...settings, LOCAL_STATE_DIR: state });
    expect(second.output()).toContain(`Failed 1 job(s) the last run left unfinished: ${stuck.jobId}.`);
    expect(second.output()).toContain(`WEBHOOK_SECRET=${secret} `);

    const kept = await job(second, done.jobId);
    expect(kept.status).toBe('succeeded');
    const result = Buffer.from(await (await fetch(kept.resultUrl!)).arrayBuffer());
    expect((await sharp(result).metadata()).format).toBe('webp');

    const failed = await job(second, stuck.jobId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      error: 'internal_error',
      message: `The job stopped before it finished: the local gateway was stopped while it ran (npm start was ended or restarted). Send it again; quote job id ${stuck.jobId} when reporting it.`,
    });
    // Its webhook says so too, signed with the kept secret.
    const told = await vi.waitFor(
      () => {
        const hook = hooks.find((entry) => entry.body.includes(stuck.jobId));
        expect(hook).toBeDefined();
        return hook!;
      },
      { timeout: 30_000, interval: 250 },
    );
    expect(JSON.parse(told.body)).toMatchObject({ jobId: stuck.jobId, status: 'failed' });
    expect(told.signature).toBe(`sha256=${createHmac('sha256', secret).update(told.body).digest('hex')}`);
  }, 240_000);
});
