import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller } from '#shared/auth/authorize.ts';
import { isTierName, tiers } from '#shared/tiers.ts';

/** Authorizer context as API Gateway hands it on: every value a string, number or boolean. */
export function callerToContext(caller: Caller): Record<string, string | number | boolean> {
  return {
    tier: caller.tier,
    callerId: caller.callerId,
    requestsPerMinute: caller.requestsPerMinute,
    keyed: caller.keyed,
  };
}

/** Reads the caller back from the event; a function invoked without an authorizer serves the free tier. */
export function callerFromEvent(event: Pick<APIGatewayProxyEvent, 'requestContext'>): Caller {
  const context = event.requestContext?.authorizer ?? {};
  const tier = isTierName(context.tier) ? context.tier : 'free';
  const sourceIp = event.requestContext?.identity?.sourceIp ?? 'unknown';
  return {
    tier,
    callerId: typeof context.callerId === 'string' ? context.callerId : `ip:${sourceIp}`,
    requestsPerMinute: Number(context.requestsPerMinute) || tiers[tier].requestsPerMinute,
    keyed: context.keyed === true || context.keyed === 'true',
  };
}
