import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayApiKey } from '../../functions/authorizer/key-directory.ts';

export interface RecordedCall {
  service: 'apigateway' | 'ssm' | 'secretsmanager';
  operation: string;
  /** Query of a GET, JSON body otherwise. */
  input: Record<string, unknown>;
}

export interface FakeUsagePlan {
  id: string;
  name: string;
  apiStages: { apiId: string; stage: string }[];
  throttle?: { rateLimit: number; burstLimit: number };
  tags?: Record<string, string>;
  keyIds: Set<string>;
}

export interface FakeAws {
  endpoint: string;
  calls: RecordedCall[];
  keys: GatewayApiKey[];
  plans: FakeUsagePlan[];
  parameters: Map<string, string>;
  /** Secrets Manager secrets by ARN: their SecretString. */
  secrets: Map<string, string>;
  close(): Promise<void>;
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
};

/** Pages of two, to make the callers page. */
const pageSize = 2;
const page = <T>(items: T[], position: string | undefined) => {
  const start = Number(position ?? 0);
  const next = start + pageSize < items.length ? String(start + pageSize) : undefined;
  return { item: items.slice(start, start + pageSize), ...(next ? { position: next } : {}) };
};

/**
 * The AWS APIs the authorizer and scripts/api-keys.ts call, on loopback and over their real wire
 * formats, so that the real SDK clients are exercised: API Gateway's REST-JSON API keys and usage
 * plans, SSM GetParameter and Secrets Manager GetSecretValue (JSON 1.1 with X-Amz-Target).
 */
export async function startFakeAws(): Promise<FakeAws> {
  const calls: RecordedCall[] = [];
  const keys: GatewayApiKey[] = [];
  const plans: FakeUsagePlan[] = [];
  const parameters = new Map<string, string>();
  const secrets = new Map<string, string>();
  const newId = () => randomBytes(5).toString('hex');
  const planView = ({ keyIds: _keyIds, ...plan }: FakeUsagePlan) => plan;

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams);
    const send = (status: number, body?: unknown, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type });
      response.end(body === undefined ? '' : JSON.stringify(body));
    };
    const notFound = () => send(404, { message: 'Invalid identifier specified' });
    const route = `${request.method} ${url.pathname}`;
    const record = (operation: string, input: Record<string, unknown>) =>
      calls.push({ service: 'apigateway', operation, input });
    const keyPath = route.match(/^(GET|DELETE) \/apikeys\/([^/]+)$/);
    const planKeysPath = route.match(/^POST \/usageplans\/([^/]+)\/keys$/);
    const planPath = route.match(/^(PATCH|DELETE) \/usageplans\/([^/]+)$/);

    if (route === 'GET /apikeys') {
      record('GetApiKeys', query);
      const matching = keys
        .filter((key) => (key.name ?? '').startsWith(query.name ?? ''))
        .map((key) => ({ ...key, value: query.includeValues === 'true' ? key.value : undefined }));
      send(200, page(matching, query.position));
    } else if (route === 'POST /apikeys') {
      const input = await readBody(request);
      record('CreateApiKey', input);
      const key: GatewayApiKey = {
        id: newId(),
        name: input.name as string,
        value: (input.value as string | undefined) ?? randomBytes(30).toString('base64url'),
        enabled: input.enabled === true,
        tags: input.tags as Record<string, string>,
      };
      keys.push(key);
      send(201, key);
    } else if (keyPath) {
      const [, verb, id] = keyPath;
      const index = keys.findIndex((key) => key.id === id);
      record(verb === 'GET' ? 'GetApiKey' : 'DeleteApiKey', { id });
      if (index < 0) return notFound();
      if (verb === 'GET') return send(200, { ...keys[index], value: undefined });
      const [deleted] = keys.splice(index, 1);
      for (const plan of plans) plan.keyIds.delete(deleted!.id!);
      send(202);
    } else if (route === 'GET /usageplans') {
      record('GetUsagePlans', query);
      const matching = plans.filter((plan) => !query.keyId || plan.keyIds.has(query.keyId));
      send(200, page(matching.map(planView), query.position));
    } else if (route === 'POST /usageplans') {
      const input = await readBody(request);
      record('CreateUsagePlan', input);
      const plan: FakeUsagePlan = {
        id: newId(),
        name: input.name as string,
        apiStages: (input.apiStages as FakeUsagePlan['apiStages']) ?? [],
        throttle: input.throttle as FakeUsagePlan['throttle'],
        tags: input.tags as Record<string, string>,
        keyIds: new Set(),
      };
      plans.push(plan);
      send(201, planView(plan));
    } else if (planKeysPath) {
      const usagePlanId = planKeysPath[1];
      const input = await readBody(request);
      record('CreateUsagePlanKey', { usagePlanId, ...input });
      const plan = plans.find((candidate) => candidate.id === usagePlanId);
      if (!plan || !keys.some((key) => key.id === input.keyId)) return notFound();
      plan.keyIds.add(input.keyId as string);
      send(201, { id: input.keyId, type: input.keyType });
    } else if (planPath) {
      const [, verb, usagePlanId] = planPath;
      const index = plans.findIndex((plan) => plan.id === usagePlanId);
      if (index < 0) return notFound();
      const plan = plans[index]!;
      if (verb === 'PATCH') {
        const input = await readBody(request);
        record('UpdateUsagePlan', { usagePlanId, ...input });
        for (const operation of input.patchOperations as { op: string; path: string; value: string }[]) {
          if (operation.op === 'remove' && operation.path === '/apiStages') {
            plan.apiStages = plan.apiStages.filter(
              (stage) => `${stage.apiId}:${stage.stage}` !== operation.value,
            );
          }
        }
        return send(200, planView(plan));
      }
      record('DeleteUsagePlan', { usagePlanId });
      // As API Gateway does: a plan still used by a stage cannot go.
      if (plan.apiStages.length > 0) return send(400, { message: 'usage plan is associated with stages' });
      plans.splice(index, 1);
      send(202);
    } else if (request.method === 'POST' && request.headers['x-amz-target'] === 'AmazonSSM.GetParameter') {
      const input = (await readBody(request)) as { Name: string; WithDecryption?: boolean };
      calls.push({ service: 'ssm', operation: 'GetParameter', input });
      const value = parameters.get(input.Name);
      const type = 'application/x-amz-json-1.1';
      if (value === undefined) return send(400, { __type: 'ParameterNotFound', message: input.Name }, type);
      send(200, { Parameter: { Name: input.Name, Type: 'SecureString', Value: value, Version: 1 } }, type);
    } else if (
      request.method === 'POST' &&
      request.headers['x-amz-target'] === 'secretsmanager.GetSecretValue'
    ) {
      const input = (await readBody(request)) as { SecretId: string };
      calls.push({ service: 'secretsmanager', operation: 'GetSecretValue', input });
      const value = secrets.get(input.SecretId);
      const type = 'application/x-amz-json-1.1';
      if (value === undefined) {
        return send(
          400,
          {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          },
          type,
        );
      }
      const name = input.SecretId.split(':').at(-1);
      send(
        200,
        {
          ARN: input.SecretId,
          Name: name,
          SecretString: value,
          VersionId: 'v1',
          VersionStages: ['AWSCURRENT'],
        },
        type,
      );
    } else {
      send(404, { message: `unexpected ${route}` });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    keys,
    plans,
    parameters,
    secrets,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
