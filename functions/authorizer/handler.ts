import { APIGatewayClient, type ApiKey, paginateGetApiKeys } from '@aws-sdk/client-api-gateway';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import * as z from 'zod';
import { createAuthorizer } from './authorizer.ts';
import { createKeyDirectory, keyNamePrefix } from './key-directory.ts';
import { createProxySecret } from './proxy-secret.ts';

/** Set by the stack; parsed once, so a misconfigured authorizer fails at init. */
const env = z
  .object({
    /** The stack's name: the `deployment` tag and name prefix of its API keys. */
    API_KEY_DEPLOYMENT: z.string().min(1),
    /** An SSM SecureString parameter holding the proxy secret; unset: no secret is required. */
    PROXY_SECRET_PARAMETER: z.string().min(1).optional(),
  })
  .parse(process.env);

const apiGateway = new APIGatewayClient({});
const ssm = new SSMClient({});

async function listDeploymentKeys(): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  const pages = paginateGetApiKeys(
    { client: apiGateway, pageSize: 500 },
    { includeValues: true, nameQuery: keyNamePrefix(env.API_KEY_DEPLOYMENT) },
  );
  for await (const page of pages) keys.push(...(page.items ?? []));
  return keys;
}

async function readProxySecret(): Promise<string | undefined> {
  const name = env.PROXY_SECRET_PARAMETER;
  if (!name) return undefined;
  const answer = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const value = answer.Parameter?.Value;
  // Configured but empty would silently switch the check off: refuse to run instead.
  if (!value) throw new Error(`SSM parameter ${name} is empty`);
  return value;
}

export const handler = createAuthorizer({
  keys: createKeyDirectory({ deployment: env.API_KEY_DEPLOYMENT, listKeys: listDeploymentKeys }),
  proxySecret: createProxySecret(readProxySecret),
});
