import { APIGatewayClient, type ApiKey, paginateGetApiKeys } from '@aws-sdk/client-api-gateway';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyId } from '#shared/auth/keys.ts';
import { tiers } from '#shared/tiers.ts';
import { createKeyDirectory, keyNamePrefix } from '../../functions/authorizer/key-directory.ts';
import { throttleFor } from '../../infra/stack/throttle.ts';
import { issueKey, listKeys, revokeKey } from '../../scripts/api-keys.ts';
import { type FakeAws, startFakeAws } from './fake-aws.ts';

const stack = 'FileConversionApi';
const apiStages = [{ apiId: 'abcdef1234', stage: 'v1' }];
let aws: FakeAws;
let client: APIGatewayClient;

/** The authorizer's view of the keys, read through the same API. */
const directory = () =>
  createKeyDirectory({
    deployment: stack,
    listKeys: async () => {
      const keys: ApiKey[] = [];
      const pages = paginateGetApiKeys({ client }, { includeValues: true, nameQuery: keyNamePrefix(stack) });
      for await (const page of pages) keys.push(...(page.items ?? []));
      return keys;
    },
  });

beforeAll(async () => {
  aws = await startFakeAws();
  client = new APIGatewayClient({
    endpoint: aws.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIAFAKEFAKEFAKEFAKE', secretAccessKey: 'fake' },
  });
});

// Each test starts from what the stack deploys: a plan per tier and the free tier's shared key.
beforeEach(() => {
  aws.plans.length = 0;
  aws.keys.length = 0;
  for (const tier of ['free', 'pro', 'enterprise'] as const) {
    aws.plans.push({ id: `plan-${tier}`, name: `${stack}-${tier}`, apiStages, keyIds: new Set() });
  }
  aws.keys.push({
    id: 'free-shared',
    name: `${stack}-free-shared`,
    value: 'shared-free-value',
    enabled: true,
    tags: { deployment: stack, tier: 'free', role: 'free-shared' },
  });
  aws.plans[0]!.keyIds.add('free-shared');
});

/** A pro key and an enterprise key with a rate of its own, as the first two tests issue them. */
const issueBoth = async () => {
  await issueKey(client, { stack, tier: 'pro', customer: 'Acme Corp' });
  await issueKey(client, { stack, tier: 'enterprise', customer: 'Big', requestsPerMinute: 5000 });
};

afterAll(async () => {
  client?.destroy();
  await aws?.close();
});

describe('scripts/api-keys.ts', () => {
  it('issues a pro key on the pro plan, which the authorizer accepts at once', async () => {
    const issued = await issueKey(client, { stack, tier: 'pro', customer: 'Acme Corp' });
    expect(issued).toMatchObject({
      tier: 'pro',
      requestsPerMinute: 100,
      usagePlan: `${stack}-pro`,
      name: `${stack}-pro-acme-corp`,
    });
    expect(issued.value.length).toBeGreaterThanOrEqual(20);
    expect(aws.plans.find((plan) => plan.name === `${stack}-pro`)!.keyIds.has(issued.id)).toBe(true);
    expect(await directory().find(issued.value)).toEqual({
      tier: 'pro',
      requestsPerMinute: tiers.pro.requestsPerMinute,
      callerId: keyId(issued.value),
    });
  });

  it('gives an enterprise key with its own rate a usage plan of its own, throttled to that rate', async () => {
    const issued = await issueKey(client, {
      stack,
      tier: 'enterprise',
      customer: 'Big',
      requestsPerMinute: 5000,
    });
    const own = aws.plans.find((plan) => plan.name === `${stack}-enterprise-big`)!;
    expect(own.throttle).toEqual(throttleFor(5000));
    expect(own.apiStages).toEqual(apiStages);
    expect([...own.keyIds]).toEqual([issued.id]);
    expect(aws.plans.find((plan) => plan.name === `${stack}-enterprise`)!.keyIds.size).toBe(0);
    expect(await directory().find(issued.value)).toEqual({
      tier: 'enterprise',
      requestsPerMinute: 5000,
      callerId: keyId(issued.value),
    });
  });

  it('refuses what the contract has no key for', async () => {
    await expect(issueKey(client, { stack, tier: 'free', customer: 'x' })).rejects.toThrow('--tier');
    await expect(issueKey(client, { stack, tier: 'gold', customer: 'x' })).rejects.toThrow('--tier');
    await expect(
      issueKey(client, { stack, tier: 'pro', customer: 'x', requestsPerMinute: 500 }),
    ).rejects.toThrow('--rpm');
    await expect(issueKey(client, { stack: 'NotDeployed', tier: 'pro', customer: 'x' })).rejects.toThrow(
      'No usage plan NotDeployed-pro',
    );
  });

  it('lists the issued keys, not the shared free key', async () => {
    await issueBoth();
    const listed = await listKeys(client, stack);
    expect(listed.map((key) => [key.tier, key.requestsPerMinute, key.enabled]).sort()).toEqual([
      ['enterprise', 5000, true],
      ['pro', undefined, true],
    ]);
  });

  it('revokes a key, and the usage plan that was its own, after which the authorizer refuses it', async () => {
    await issueBoth();
    const [enterprise] = (await listKeys(client, stack)).filter((key) => key.tier === 'enterprise');
    const value = aws.keys.find((key) => key.id === enterprise!.id)!.value!;
    const ownPlan = aws.plans.find((plan) => plan.name === `${stack}-enterprise-big`)!;
    const deleted = await revokeKey(client, { stack, id: enterprise!.id });
    expect(deleted).toEqual([enterprise!.id, ownPlan.id]);
    expect(aws.plans.map((plan) => plan.name).sort()).toEqual([
      `${stack}-enterprise`,
      `${stack}-free`,
      `${stack}-pro`,
    ]);
    expect(await directory().find(value)).toBeUndefined();
    // The pro key is untouched.
    expect((await listKeys(client, stack)).map((key) => key.tier)).toEqual(['pro']);
  });

  it('will not revoke the shared free key or another deployment’s key', async () => {
    await issueBoth();
    await expect(revokeKey(client, { stack, id: 'free-shared' })).rejects.toThrow('shared key');
    const [pro] = await listKeys(client, stack);
    await expect(revokeKey(client, { stack: 'OtherStack', id: pro!.id })).rejects.toThrow('does not belong');
  });
});
