import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keyId } from '#shared/auth/keys.ts';
import { tiers } from '#shared/tiers.ts';
import { createAuthorizer } from '../../functions/authorizer/authorizer.ts';
import { createKeyDirectory, type GatewayApiKey } from '../../functions/authorizer/key-directory.ts';
import { createProxySecret } from '../../functions/authorizer/proxy-secret.ts';
import { type FakeAws, startFakeAws } from './fake-aws.ts';

const deployment = 'FileConversionApi';
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abcdef1234/v1/POST/slugify';
const sourceIp = '203.0.113.9';

const key = (
  value: string,
  tags: Record<string, string>,
  extra: Partial<GatewayApiKey> = {},
): GatewayApiKey => ({
  id: `id-${value}`,
  name: `${deployment}-${tags.tier ?? 'x'}-${value}`,
  value,
  enabled: true,
  tags: { deployment, ...tags },
  ...extra,
});

const sharedFreeKey = key('shared-free-key-value', { tier: 'free', role: 'free-shared' });
const gatewayKeys: GatewayApiKey[] = [
  sharedFreeKey,
  key('pro-key-1', { tier: 'pro' }),
  key('ent-key-custom', { tier: 'enterprise', requestsPerMinute: '5000' }),
  key('ent-key-default', { tier: 'enterprise' }),
  key('pro-key-disabled', { tier: 'pro' }, { enabled: false }),
  key('pro-key-other-stack', { tier: 'pro', deployment: 'SomeOtherStack' }),
  key('key-without-tier', {}),
];

function authorizerEvent(headers: Record<string, string>): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn,
    resource: '/slugify',
    path: '/slugify',
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef1234',
      httpMethod: 'POST',
      path: '/v1/slugify',
      protocol: 'HTTP/1.1',
      stage: 'v1',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: 1_700_000_000_000,
      resourceId: 'res123',
      resourcePath: '/slugify',
      identity: { sourceIp, userAgent: 'vitest' },
    },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

const allow = {
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: methodArn }],
};
const deny = { ...allow, Statement: [{ ...allow.Statement[0]!, Effect: 'Deny' }] };

describe('authorizer: event in, policy out', () => {
  const build = (proxySecret?: string) =>
    createAuthorizer({
      keys: createKeyDirectory({ deployment, listKeys: async () => gatewayKeys }),
      proxySecret: async () => proxySecret,
    });

  it('lets an anonymous call through on the free tier, throttled by the shared free key', async () => {
    const result = await build()(authorizerEvent({ 'Content-Type': 'application/json' }));
    expect(result).toEqual({
      principalId: `ip:${sourceIp}`,
      policyDocument: allow,
      context: {
        tier: 'free',
        callerId: `ip:${sourceIp}`,
        requestsPerMinute: tiers.free.requestsPerMinute,
        keyed: false,
      },
      usageIdentifierKey: sharedFreeKey.value,
    });
  });

  it('lets a pro key through on the pro tier, throttled by its own key (header names in any case)', async () => {
    const result = await build()(authorizerEvent({ 'X-Api-Key': 'pro-key-1' }));
    expect(result).toEqual({
      principalId: keyId('pro-key-1'),
      policyDocument: allow,
      context: {
        tier: 'pro',
        callerId: keyId('pro-key-1'),
        requestsPerMinute: tiers.pro.requestsPerMinute,
        keyed: true,
      },
      usageIdentifierKey: 'pro-key-1',
    });
  });

  it('hands on an enterprise key’s own rate, or the tier default', async () => {
    const custom = await build()(authorizerEvent({ 'x-api-key': 'ent-key-custom' }));
    expect(custom.context).toMatchObject({ tier: 'enterprise', requestsPerMinute: 5000, keyed: true });
    const plain = await build()(authorizerEvent({ 'x-api-key': 'ent-key-default' }));
    expect(plain.context).toMatchObject({
      tier: 'enterprise',
      requestsPerMinute: tiers.enterprise.requestsPerMinute,
    });
  });

  it.each([
    ['an unknown key', 'no-such-key'],
    ['a disabled key', 'pro-key-disabled'],
    ["another deployment's key", 'pro-key-other-stack'],
    ['a key without a tier', 'key-without-tier'],
    ['the free tier’s shared key', 'shared-free-key-value'],
    ['an empty key', ''],
  ])('refuses %s as Unauthorized (the gateway answers 401 invalid_api_key)', async (_label, apiKey) => {
    await expect(build()(authorizerEvent({ 'x-api-key': apiKey }))).rejects.toThrow(/^Unauthorized$/);
  });

  it('denies a wrong or missing proxy secret (the gateway answers 403 invalid_proxy_secret)', async () => {
    const authorizer = build('the-marketplace-secret');
    const wrong = await authorizer(
      authorizerEvent({ 'x-api-key': 'pro-key-1', 'x-marketplace-proxy-secret': 'guess' }),
    );
    expect(wrong).toEqual({ principalId: 'denied', policyDocument: deny });
    expect(wrong.usageIdentifierKey).toBeUndefined();
    const missing = await authorizer(authorizerEvent({ 'x-api-key': 'pro-key-1' }));
    expect(missing.policyDocument).toEqual(deny);
    const wrongWithoutKey = await authorizer(authorizerEvent({ 'x-marketplace-proxy-secret': 'guess' }));
    expect(wrongWithoutKey.policyDocument).toEqual(deny);
  });

  it('checks the proxy secret before the key: a wrong or missing secret never lists the keys', async () => {
    const listKeys = vi.fn(async () => gatewayKeys);
    const authorizer = createAuthorizer({
      keys: createKeyDirectory({ deployment, listKeys }),
      proxySecret: async () => 'the-marketplace-secret',
    });
    const refused: Array<Record<string, string>> = [
      { 'x-api-key': 'no-such-key', 'x-marketplace-proxy-secret': 'guess' },
      { 'x-api-key': 'pro-key-1', 'x-marketplace-proxy-secret': 'guess' },
      { 'x-api-key': 'another-unknown-key' },
    ];
    for (const headers of refused) {
      expect((await authorizer(authorizerEvent(headers))).policyDocument).toEqual(deny);
    }
    expect(listKeys).not.toHaveBeenCalled();

    const good = await authorizer(
      authorizerEvent({ 'x-api-key': 'pro-key-1', 'X-Marketplace-Proxy-Secret': 'the-marketplace-secret' }),
    );
    expect(good).toMatchObject({
      policyDocument: allow,
      context: { tier: 'pro' },
      usageIdentifierKey: 'pro-key-1',
    });
    const anonymous = await authorizer(authorizerEvent({}));
    expect(anonymous).toMatchObject({ policyDocument: allow, context: { tier: 'free' } });
    expect(listKeys).toHaveBeenCalledTimes(1);
  });

  it('lets free and keyed calls through when a re-read of the keys is throttled', async () => {
    let clock = 0;
    const listKeys = vi
      .fn<() => Promise<GatewayApiKey[]>>()
      .mockResolvedValueOnce(gatewayKeys)
      .mockRejectedValue(new Error('TooManyRequestsException: Rate exceeded'));
    const authorizer = createAuthorizer({
      keys: createKeyDirectory({ deployment, listKeys, now: () => clock }),
      proxySecret: async () => undefined,
    });
    await authorizer(authorizerEvent({}));
    clock = 120_000;
    const anonymous = await authorizer(authorizerEvent({}));
    expect(anonymous).toMatchObject({ policyDocument: allow, usageIdentifierKey: sharedFreeKey.value });
    const pro = await authorizer(authorizerEvent({ 'x-api-key': 'pro-key-1' }));
    expect(pro).toMatchObject({ policyDocument: allow, usageIdentifierKey: 'pro-key-1' });
    await expect(authorizer(authorizerEvent({ 'x-api-key': 'no-such-key' }))).rejects.toThrow(
      /^Unauthorized$/,
    );
    expect(listKeys).toHaveBeenCalledTimes(2);
  });
});

describe('key directory', () => {
  it('reads the keys once per snapshot, and again when the snapshot is old', async () => {
    let clock = 0;
    const listKeys = vi.fn(async () => gatewayKeys);
    const directory = createKeyDirectory({
      deployment,
      listKeys,
      ttlMs: 60_000,
      minRefreshMs: 10_000,
      now: () => clock,
    });
    await Promise.all([directory.find('pro-key-1'), directory.find('pro-key-1'), directory.freeTierKey()]);
    expect(listKeys).toHaveBeenCalledTimes(1);
    clock = 59_000;
    await directory.find('pro-key-1');
    expect(listKeys).toHaveBeenCalledTimes(1);
    clock = 60_000;
    await directory.find('pro-key-1');
    expect(listKeys).toHaveBeenCalledTimes(2);
  });

  it('sees a key issued a moment ago, but re-reads for unknown keys at most every minRefreshMs', async () => {
    let clock = 0;
    const keys = [...gatewayKeys];
    const listKeys = vi.fn(async () => keys);
    const directory = createKeyDirectory({ deployment, listKeys, minRefreshMs: 10_000, now: () => clock });
    expect(await directory.find('brand-new')).toBeUndefined();
    keys.push(key('brand-new', { tier: 'pro' }));
    clock = 5_000;
    expect(await directory.find('brand-new')).toBeUndefined();
    expect(listKeys).toHaveBeenCalledTimes(1);
    clock = 10_000;
    expect(await directory.find('brand-new')).toEqual({
      tier: 'pro',
      requestsPerMinute: tiers.pro.requestsPerMinute,
      callerId: keyId('brand-new'),
    });
    expect(listKeys).toHaveBeenCalledTimes(2);
  });

  it('forgets a revoked key at the next snapshot', async () => {
    let clock = 0;
    let keys = [...gatewayKeys];
    const directory = createKeyDirectory({
      deployment,
      listKeys: async () => keys,
      ttlMs: 60_000,
      now: () => clock,
    });
    expect(await directory.find('pro-key-1')).toBeDefined();
    keys = keys.filter((candidate) => candidate.value !== 'pro-key-1');
    clock = 60_000;
    expect(await directory.find('pro-key-1')).toBeUndefined();
  });

  it('serves the last snapshot for up to maxStaleMs while re-reads fail, retrying at most every minRefreshMs', async () => {
    let clock = 0;
    let failing = false;
    const listKeys = vi.fn(async () => {
      if (failing) throw new Error('TooManyRequestsException');
      return gatewayKeys;
    });
    const directory = createKeyDirectory({
      deployment,
      listKeys,
      ttlMs: 60_000,
      minRefreshMs: 10_000,
      maxStaleMs: 600_000,
      now: () => clock,
    });
    expect(await directory.find('pro-key-1')).toBeDefined();
    failing = true;

    clock = 60_000;
    expect(await directory.find('pro-key-1')).toEqual({
      tier: 'pro',
      requestsPerMinute: tiers.pro.requestsPerMinute,
      callerId: keyId('pro-key-1'),
    });
    expect(await directory.freeTierKey()).toBe(sharedFreeKey.value);
    expect(await directory.find('no-such-key')).toBeUndefined();
    expect(listKeys).toHaveBeenCalledTimes(2);

    clock = 70_000;
    expect(await directory.find('pro-key-1')).toBeDefined();
    expect(listKeys).toHaveBeenCalledTimes(3);

    // Past the bound, keyed calls fail rather than trust a table that old; anonymous calls need
    // only the shared free key, which stays.
    clock = 600_000;
    await expect(directory.find('pro-key-1')).rejects.toThrow('TooManyRequestsException');
    expect(await directory.freeTierKey()).toBe(sharedFreeKey.value);

    failing = false;
    clock = 620_000;
    expect(await directory.find('pro-key-1')).toBeDefined();
    expect(listKeys).toHaveBeenCalledTimes(5);
  });

  it('fails when the free tier’s shared key is missing', async () => {
    const directory = createKeyDirectory({ deployment, listKeys: async () => gatewayKeys.slice(1) });
    await expect(directory.freeTierKey()).rejects.toThrow(/role=free-shared/);
  });

  it('reads the proxy secret once, and retries after a failure', async () => {
    const read = vi.fn().mockRejectedValueOnce(new Error('throttled')).mockResolvedValue('secret');
    const proxySecret = createProxySecret(read);
    await expect(proxySecret()).rejects.toThrow('throttled');
    expect(await proxySecret()).toBe('secret');
    expect(await proxySecret()).toBe('secret');
    expect(read).toHaveBeenCalledTimes(2);
  });
});

describe('the deployed handler, with the AWS SDK against API Gateway and SSM on loopback', () => {
  let aws: FakeAws;
  let handler: (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
  const parameterName = '/file-conversion/proxy-secret';

  beforeAll(async () => {
    aws = await startFakeAws();
    aws.keys.push(...gatewayKeys, key('unrelated', { tier: 'pro' }, { name: 'OtherService-pro-unrelated' }));
    aws.parameters.set(parameterName, 'the-marketplace-secret');
    vi.stubEnv('AWS_ENDPOINT_URL', aws.endpoint);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAFAKEFAKEFAKEFAKE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret-access-key');
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    vi.stubEnv('API_KEY_DEPLOYMENT', deployment);
    vi.stubEnv('PROXY_SECRET_PARAMETER', parameterName);
    ({ handler } = await import('../../functions/authorizer/handler.ts'));
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await aws?.close();
  });

  it('authorizes free, pro, bad key and bad secret with one key listing and one secret read', async () => {
    const secret = { 'x-marketplace-proxy-secret': 'the-marketplace-secret' };
    const free = await handler(authorizerEvent({}));
    expect(free).toMatchObject({
      policyDocument: allow,
      usageIdentifierKey: sharedFreeKey.value,
      context: { tier: 'free' },
    });
    const pro = await handler(authorizerEvent({ 'x-api-key': 'pro-key-1', ...secret }));
    expect(pro).toMatchObject({
      policyDocument: allow,
      usageIdentifierKey: 'pro-key-1',
      context: { tier: 'pro' },
    });
    const enterprise = await handler(authorizerEvent({ 'x-api-key': 'ent-key-custom', ...secret }));
    expect(enterprise.context).toMatchObject({ tier: 'enterprise', requestsPerMinute: 5000 });
    await expect(handler(authorizerEvent({ 'x-api-key': 'unrelated', ...secret }))).rejects.toThrow(
      'Unauthorized',
    );
    const badSecret = await handler(
      authorizerEvent({ 'x-api-key': 'pro-key-1', 'x-marketplace-proxy-secret': 'x' }),
    );
    expect(badSecret.policyDocument).toEqual(deny);

    const ssmCalls = aws.calls.filter((call) => call.service === 'ssm');
    expect(ssmCalls).toEqual([
      { service: 'ssm', operation: 'GetParameter', input: { Name: parameterName, WithDecryption: true } },
    ]);
    // One snapshot, read page by page (the fake serves two keys a page) and filtered by name
    // prefix; the unknown keys came within minRefreshMs of it, so they caused no re-read.
    const listings = aws.calls.filter((call) => call.service === 'apigateway');
    expect(listings.length).toBe(Math.ceil(gatewayKeys.length / 2));
    for (const listing of listings)
      expect(listing.input).toMatchObject({ includeValues: 'true', name: `${deployment}-` });
    expect(listings.slice(1).every((listing) => listing.input.position !== undefined)).toBe(true);
  });
});
