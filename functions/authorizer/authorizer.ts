import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { assertProxySecret, authorize, type Caller } from '#shared/auth/authorize.ts';
import { callerToContext } from '#shared/auth/caller.ts';
import { isApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import type { KeyDirectory } from './key-directory.ts';

export interface AuthorizerDeps {
  keys: KeyDirectory;
  proxySecret: () => Promise<string | undefined>;
}

const policy = (effect: 'Allow' | 'Deny', methodArn: string) => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: methodArn }],
});

function lowerCaseHeaders(
  headers: APIGatewayRequestAuthorizerEvent['headers'],
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

/**
 * The gateway's REQUEST authorizer: the contract's authentication rules (shared/auth/authorize.ts)
 * over API Gateway's event. Allow carries the caller as context for the handlers and the API key
 * whose usage plan throttles the call (the free tier's shared key for anonymous calls). An unknown
 * key answers "Unauthorized", which the gateway turns into 401 invalid_api_key; a wrong proxy
 * secret is a Deny, which it turns into 403 invalid_proxy_secret.
 */
export function createAuthorizer(deps: AuthorizerDeps) {
  return async function authorizeRequest(
    event: APIGatewayRequestAuthorizerEvent,
  ): Promise<APIGatewayAuthorizerResult> {
    const headers = lowerCaseHeaders(event.headers);
    const apiKey = headers['x-api-key'];
    const requestId = event.requestContext.requestId;
    let caller: Caller;
    try {
      // The secret first: a caller without the right one gets no key lookup, which could make the
      // directory re-read the key listing (an unknown key does) on a stranger's behalf.
      const proxySecret = await deps.proxySecret();
      assertProxySecret(headers, proxySecret);
      const record = apiKey === undefined ? undefined : await deps.keys.find(apiKey);
      caller = authorize(
        { headers, sourceIp: event.requestContext.identity.sourceIp },
        { lookupKey: () => record, proxySecret },
      );
    } catch (error) {
      if (isApiError(error) && error.code === 'invalid_proxy_secret') {
        log('info', 'authorizer denied', { requestId, reason: error.code });
        return { principalId: 'denied', policyDocument: policy('Deny', event.methodArn) };
      }
      if (isApiError(error) && error.code === 'invalid_api_key') {
        log('info', 'authorizer refused', { requestId, reason: error.code });
        throw new Error('Unauthorized');
      }
      throw error;
    }
    return {
      principalId: caller.callerId,
      policyDocument: policy('Allow', event.methodArn),
      context: callerToContext(caller),
      usageIdentifierKey: caller.keyed && apiKey !== undefined ? apiKey : await deps.keys.freeTierKey(),
    };
  };
}
