import { describe, expect, it } from 'vitest';
import { handler as imageConvert } from '#functions/image-convert/handler.ts';
import type { Caller } from '#shared/auth/authorize.ts';
import { assertMayRunJobs } from '#shared/jobs/accept.ts';
import { fileRouteNeeds } from '#shared/routes/types.ts';
import { routes } from '#shared/routes.ts';
import type { TierName } from '#shared/tiers.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const caller = (tier: TierName, keyed = true): Caller => ({
  tier,
  keyed,
  callerId: keyed ? `key:${tier}` : 'ip:203.0.113.7',
  requestsPerMinute: 10,
});

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
  return 'allowed';
};

describe('tier needs of the route table', () => {
  it('are stated on every file route (and POST /uploads), and only there, as the value file handlers accept jobs by', () => {
    for (const route of routes) {
      if (route.kind === 'file' || route.path === '/uploads')
        expect(route.tierNeeds, route.path).toBe(fileRouteNeeds);
      else expect(route.tierNeeds, route.path).toBeUndefined();
    }
    expect(fileRouteNeeds.asyncJobs).toEqual(['pro', 'enterprise']);
  });

  it('decide who may run a route as an async job', () => {
    const enterpriseOnly = { asyncJobs: ['enterprise'] } as const;
    expect(refusal(() => assertMayRunJobs(caller('enterprise'), enterpriseOnly))).toBe('allowed');
    expect(refusal(() => assertMayRunJobs(caller('pro'), enterpriseOnly))).toEqual({
      code: 'insufficient_permissions',
      message: 'Async jobs are for the enterprise tier; this key is of the pro tier.',
    });
    expect(refusal(() => assertMayRunJobs(caller('pro'), fileRouteNeeds))).toBe('allowed');
    expect(refusal(() => assertMayRunJobs(caller('free'), fileRouteNeeds))).toEqual({
      code: 'insufficient_permissions',
      message: 'Async jobs are for the pro and enterprise tiers; this key is of the free tier.',
    });
    expect(refusal(() => assertMayRunJobs(caller('free', false), fileRouteNeeds))).toEqual({
      code: 'missing_api_key',
      message: 'Async jobs are for the pro and enterprise tiers; send an x-api-key.',
    });
  });

  it('are what a file route answers a callbackUrl with, before any work', async () => {
    const body = {
      sourceUrl: 'https://example.org/a.png',
      outputFormat: 'png',
      callbackUrl: 'https://example.org/hook',
    };
    const anonymous = await call(imageConvert, apiEvent(body));
    expect([anonymous.statusCode, (anonymous.json() as { error: string }).error]).toEqual([
      401,
      'missing_api_key',
    ]);
    const freeKey = apiEvent(body, { callerId: 'key:free' });
    (freeKey.requestContext.authorizer as { keyed: boolean }).keyed = true;
    const free = await call(imageConvert, freeKey);
    expect([free.statusCode, (free.json() as { error: string }).error]).toEqual([
      403,
      'insufficient_permissions',
    ]);
  });
});
