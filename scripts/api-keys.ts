import { parseArgs } from 'node:util';
import {
  APIGatewayClient,
  type ApiKey,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  GetApiKeyCommand,
  paginateGetApiKeys,
  paginateGetUsagePlans,
  UpdateUsagePlanCommand,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import { freeSharedRole, keyNamePrefix, keyTags } from '#functions/authorizer/key-directory.ts';
import { throttleFor } from '#infra/stack/throttle.ts';
import { isTierName, type TierName, tiers } from '#shared/tiers.ts';

/**
 * Issues, lists and revokes the API keys of a deployment. A key is an API Gateway API key tagged
 * with the deployment and its tier, attached to the tier's usage plan (an enterprise key with its
 * own rate gets a usage plan of its own). The authorizer sees a new key within seconds and stops
 * accepting a revoked one within a minute.
 */

export const defaultStackName = 'FileConversionApi';

const usage = `Usage:
  npm run api-keys -- issue  --tier pro|enterprise --customer <name> [--rpm <requests per minute>] [--stack <name>]
  npm run api-keys -- list   [--stack <name>]
  npm run api-keys -- revoke --id <api key id> [--stack <name>]
The AWS account and region come from the usual AWS environment (AWS_PROFILE, AWS_REGION, ...).`;

export interface IssuedKey {
  id: string;
  name: string;
  tier: TierName;
  requestsPerMinute: number;
  usagePlan: string;
  /** Shown once: hand it to the customer. */
  value: string;
}

export interface KeySummary {
  id: string;
  name: string;
  tier: string;
  requestsPerMinute: number | undefined;
  enabled: boolean;
  createdDate: string | undefined;
}

async function usagePlans(client: APIGatewayClient, keyId?: string): Promise<UsagePlan[]> {
  const plans: UsagePlan[] = [];
  for await (const page of paginateGetUsagePlans({ client }, keyId ? { keyId } : {}))
    plans.push(...(page.items ?? []));
  return plans;
}

async function deploymentKeys(client: APIGatewayClient, stack: string): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  const pages = paginateGetApiKeys({ client, pageSize: 500 }, { nameQuery: keyNamePrefix(stack) });
  for await (const page of pages) keys.push(...(page.items ?? []));
  return keys.filter((key) => key.tags?.[keyTags.deployment] === stack);
}

const customerSlug = (customer: string) => {
  const slug = customer
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  if (!slug) throw new Error('--customer must contain letters or digits');
  return slug.slice(0, 64);
};

export async function issueKey(
  client: APIGatewayClient,
  options: { stack: string; tier: string; customer: string; requestsPerMinute?: number },
): Promise<IssuedKey> {
  const { stack, tier } = options;
  if (!isTierName(tier) || tier === 'free') throw new Error('--tier must be pro or enterprise');
  if (options.requestsPerMinute !== undefined) {
    if (tier !== 'enterprise') throw new Error('--rpm is only for enterprise keys');
    if (!Number.isInteger(options.requestsPerMinute) || options.requestsPerMinute < 1) {
      throw new Error('--rpm must be a positive whole number');
    }
  }
  const customer = customerSlug(options.customer);
  const plans = await usagePlans(client);
  const tierPlan = plans.find((plan) => plan.name === `${stack}-${tier}`);
  if (!tierPlan?.id)
    throw new Error(`No usage plan ${stack}-${tier}: is the stack ${stack} deployed in this region?`);

  let plan = tierPlan;
  const requestsPerMinute = options.requestsPerMinute ?? tiers[tier].requestsPerMinute;
  if (options.requestsPerMinute !== undefined) {
    const throttle = throttleFor(requestsPerMinute);
    plan = await client.send(
      new CreateUsagePlanCommand({
        name: `${stack}-${tier}-${customer}`,
        description: `Tier ${tier} for ${customer}: ${requestsPerMinute} requests per minute`,
        apiStages: tierPlan.apiStages,
        throttle: { rateLimit: throttle.rateLimit, burstLimit: throttle.burstLimit },
        tags: { [keyTags.deployment]: stack, customer },
      }),
    );
  }

  const key = await client.send(
    new CreateApiKeyCommand({
      name: `${stack}-${tier}-${customer}`,
      description: `Tier ${tier} for ${customer}`,
      enabled: true,
      tags: {
        [keyTags.deployment]: stack,
        [keyTags.tier]: tier,
        customer,
        ...(options.requestsPerMinute !== undefined
          ? { [keyTags.requestsPerMinute]: String(requestsPerMinute) }
          : {}),
      },
    }),
  );
  if (!key.id || !key.value || !key.name) throw new Error('API Gateway created a key without id or value');
  await client.send(
    new CreateUsagePlanKeyCommand({ usagePlanId: plan.id, keyId: key.id, keyType: 'API_KEY' }),
  );
  return {
    id: key.id,
    name: key.name,
    tier,
    requestsPerMinute,
    usagePlan: plan.name ?? plan.id!,
    value: key.value,
  };
}

export async function listKeys(client: APIGatewayClient, stack: string): Promise<KeySummary[]> {
  return (await deploymentKeys(client, stack))
    .filter((key) => key.tags?.[keyTags.role] !== freeSharedRole)
    .map((key) => ({
      id: key.id ?? '',
      name: key.name ?? '',
      tier: key.tags?.[keyTags.tier] ?? '?',
      requestsPerMinute: key.tags?.[keyTags.requestsPerMinute]
        ? Number(key.tags[keyTags.requestsPerMinute])
        : undefined,
      enabled: key.enabled === true,
      createdDate: key.createdDate?.toISOString(),
    }));
}

/** Deletes the key, and the usage plan made for it alone (an enterprise key with its own rate). */
export async function revokeKey(
  client: APIGatewayClient,
  options: { stack: string; id: string },
): Promise<string[]> {
  const key = await client.send(new GetApiKeyCommand({ apiKey: options.id }));
  if (key.tags?.[keyTags.deployment] !== options.stack) {
    throw new Error(`Key ${options.id} does not belong to ${options.stack}`);
  }
  if (key.tags?.[keyTags.role] === freeSharedRole) {
    throw new Error('The free tier shared key belongs to the stack; it cannot be revoked');
  }
  const ownPlans = (await usagePlans(client, options.id)).filter(
    (plan) => plan.tags?.customer !== undefined && plan.name === key.name,
  );
  await client.send(new DeleteApiKeyCommand({ apiKey: options.id }));
  for (const plan of ownPlans) {
    // A usage plan can only be deleted once no stage uses it.
    if (plan.apiStages?.length) {
      await client.send(
        new UpdateUsagePlanCommand({
          usagePlanId: plan.id,
          patchOperations: plan.apiStages.map((stage) => ({
            op: 'remove',
            path: '/apiStages',
            value: `${stage.apiId}:${stage.stage}`,
          })),
        }),
      );
    }
    await client.send(new DeleteUsagePlanCommand({ usagePlanId: plan.id }));
  }
  return [options.id, ...ownPlans.map((plan) => plan.id!)];
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tier: { type: 'string' },
      customer: { type: 'string' },
      rpm: { type: 'string' },
      id: { type: 'string' },
      stack: { type: 'string', default: defaultStackName },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  const stack = values.stack ?? defaultStackName;
  const client = new APIGatewayClient({});
  if (values.help || !command) {
    console.log(usage);
    return;
  }
  if (command === 'issue') {
    if (!values.tier || !values.customer) throw new Error(`issue needs --tier and --customer\n${usage}`);
    const issued = await issueKey(client, {
      stack,
      tier: values.tier,
      customer: values.customer,
      ...(values.rpm !== undefined ? { requestsPerMinute: Number(values.rpm) } : {}),
    });
    console.log(JSON.stringify(issued, null, 2));
    return;
  }
  if (command === 'list') {
    console.table(await listKeys(client, stack));
    return;
  }
  if (command === 'revoke') {
    if (!values.id) throw new Error(`revoke needs --id\n${usage}`);
    const deleted = await revokeKey(client, { stack, id: values.id });
    console.log(`Deleted ${deleted.join(', ')}; the authorizer refuses the key within a minute.`);
    return;
  }
  throw new Error(`Unknown command ${command}\n${usage}`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
