import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { errorStatus } from '#shared/http/errors.ts';
import { JOB_START_WINDOW_MS } from '#shared/jobs/record.ts';
import { type RouteSpec, routes } from '#shared/routes.ts';
import { tierNames, tiers } from '#shared/tiers.ts';
import { layerBinaries, qpdfBinary } from '../../infra/stack/api-function.ts';
import { bundleFunctions } from '../../infra/stack/bundle.ts';
import { freeTierRateLimitedBody, quotaFreePathPattern } from '../../infra/stack/free-tier-waf.ts';
import { FileConversionStack } from '../../infra/stack/stack.ts';
import { planRequestsPerMinute, throttleFor } from '../../infra/stack/throttle.ts';
import { projectRoot } from '../../layers/layer.ts';
import {
  cdkContext,
  logicalIdOf,
  type Resource,
  type Synthesized,
  sharedOptions,
  sharedSynthesis,
} from './synth.ts';
// The stack's other suites, run here on the same synthesis (test/infra/synth.ts).
import './stack/browser-layer.ts';
import './stack/office-function.ts';
import './stack/operations.ts';
import './stack/uploads.ts';

/** Body fields that name what a function downloads: a source, a batch, or a web page. */
const sourceFields = ['sourceUrl', 'sources', 'url'];

/** Whether the route downloads, read from its request schema. */
const downloadsSources = (route: RouteSpec) =>
  route.body instanceof z.ZodObject &&
  sourceFields.some((field) => field in (route.body as z.ZodObject).shape);

const { proxySecretParameterName } = sharedOptions;
let synth: Synthesized;
let resources: Record<string, Resource>;

beforeAll(async () => {
  synth = await sharedSynthesis();
  resources = synth.resources;
}, 240_000);

afterAll(() => synth?.cleanUp());

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const logicalId = logicalIdOf;
const functionOf = (route: RouteSpec) => {
  const fn = synth.stack.functions.get(route.function);
  if (!fn) throw new Error(`no function for ${route.function}`);
  return resources[logicalId(fn)]!;
};
const uniqueFunctions = [...new Set(routes.map((route) => route.function))];
const fileRoutes = routes.filter((route) => route.kind === 'file');

/** Full path of every API Gateway resource, from PathPart and ParentId. */
function resourcePaths(): Map<string, string> {
  const apiId = logicalId(synth.stack.api);
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources[id]!;
    const parent = resource.Properties.ParentId as { 'Fn::GetAtt'?: string[]; Ref?: string };
    const parentPath = parent['Fn::GetAtt']?.[0] === apiId ? '' : pathOf(parent.Ref!);
    const path = `${parentPath}/${resource.Properties.PathPart as string}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType('AWS::ApiGateway::Resource')) pathOf(id);
  return paths;
}

function methodFor(route: RouteSpec): Resource {
  const paths = resourcePaths();
  const resourceId = [...paths].find(([, path]) => path === route.path)?.[0];
  const method = ofType('AWS::ApiGateway::Method').find(
    ([, m]) =>
      m.Properties.HttpMethod === route.method &&
      (m.Properties.ResourceId as { Ref?: string }).Ref === resourceId &&
      resourceId !== undefined,
  );
  if (!method) throw new Error(`no method for ${route.method} ${route.path}`);
  return method[1];
}

const policyStatementsOf = (roleLogicalId: string) =>
  ofType('AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${roleLogicalId}"`))
    .flatMap(
      ([, policy]) =>
        (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );

const actionsOf = (statements: Record<string, unknown>[]) =>
  statements.flatMap((statement) => [statement.Action].flat() as string[]);

describe('functions, one per function of the route table', () => {
  it('has the route table functions plus the authorizer, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(0);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(uniqueFunctions.length + 1);
    expect(synth.stack.functions.size).toBe(uniqueFunctions.length);
  });

  it('runs every function on Node.js 24, x86_64, traced, with source maps, two malloc arenas and an expiring log group', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      // /office-to-pdf is a container image: its Node.js 24 comes with the image (layers/office/Dockerfile).
      const image = fn.Properties.PackageType === 'Image';
      expect(fn.Properties).toMatchObject({
        ...(image ? { PackageType: 'Image' } : { Runtime: 'nodejs24.x', Handler: 'index.handler' }),
        Architectures: ['x86_64'],
        TracingConfig: { Mode: 'Active' },
        Environment: {
          Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps', MALLOC_ARENA_MAX: '2' }),
        },
      });
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(resources[logGroupId]?.Properties.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('sizes memory and timeout by the kind of work', () => {
    for (const route of routes) {
      const { MemorySize, Timeout } = functionOf(route).Properties as { MemorySize: number; Timeout: number };
      const { sizing } = route;
      expect([MemorySize, Timeout], route.path).toEqual([sizing.memoryMiB, sizing.timeoutSeconds]);
      // Text routes are light; the data parsers (/data-convert, /json-validate) hold a body and its tree.
      if (route.tag === 'Text') expect(MemorySize, route.path).toBeLessThanOrEqual(512);
      // Every image function decodes pixels, and pdf-info parses a whole document.
      if (route.tag === 'Image' || route.path === '/pdf-info')
        expect(MemorySize, route.path).toBeGreaterThanOrEqual(2048);
      if (route.kind === 'file' && ['Image', 'PDF', 'Media'].includes(route.tag)) {
        expect(MemorySize, route.path).toBeGreaterThanOrEqual(2048);
        expect(Timeout, route.path).toBeGreaterThanOrEqual(60);
      }
      // A buffered answer cannot outlive the gateway's 29 s.
      if (route.kind !== 'file') expect(Timeout, route.path).toBeLessThanOrEqual(29);
    }
  });

  it('gives /tmp room for the largest tier source, and for the output of a file route, to every route that downloads', () => {
    const largestSource = Math.max(...tierNames.map((tier) => tiers[tier].maxSourceBytes));
    const downloading = routes.filter((route) => downloadsSources(route));
    // The examples of the route table (the main one or a named one) show which routes take source URLs.
    expect(downloading.map((route) => route.path).sort()).toEqual(
      routes
        .filter((route) =>
          [route.example, ...Object.values(route.moreExamples ?? {}).map((named) => named.body)].some(
            (example) => example && sourceFields.some((field) => field in example),
          ),
        )
        .map((route) => route.path)
        .sort(),
    );
    expect(downloading.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/image-convert', '/pdf-merge', '/video-convert', '/pdf-info', '/checksum']),
    );
    for (const route of routes) {
      const size = (functionOf(route).Properties.EphemeralStorage as { Size: number }).Size;
      expect(size, route.path).toBe(route.sizing.ephemeralMiB);
      expect(size, route.path).toBeLessThanOrEqual(10_240);
      if (!downloadsSources(route)) {
        expect(size, route.path).toBe(512);
        continue;
      }
      expect(size * 1024 * 1024, route.path).toBeGreaterThanOrEqual(largestSource);
      // A file route keeps its output next to the source: at least as much again.
      if (route.kind === 'file')
        expect(size * 1024 * 1024, route.path).toBeGreaterThanOrEqual(2 * largestSource);
      if (route.kind === 'file' && route.tag === 'Media') expect(size, route.path).toBe(10_240);
    }
    const authorizer = resources[logicalId(synth.stack.authorizerFunction)]!;
    expect(authorizer.Properties.EphemeralStorage).toEqual({ Size: 512 });
  });

  it('gives each function the layers its bundle imports, and the ffmpeg paths with the ffmpeg layer', () => {
    const layerIds = {
      sharp: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('SharpLayer'))![0],
      ffmpeg: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('FfmpegLayer'))![0],
      qpdf: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('QpdfLayer'))![0],
      tesseract: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('TesseractLayer'))![0],
      chromium: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('ChromiumLayer'))![0],
      fonts: ofType('AWS::Lambda::LayerVersion').find(([id]) => id.startsWith('FontsLayer'))![0],
    };
    for (const route of routes) {
      const fn = functionOf(route);
      const bundle = synth.bundles.get(route.function)!;
      const layers = ((fn.Properties.Layers as { Ref: string }[] | undefined) ?? []).map(
        (layer) => layer.Ref,
      );
      expect(layers.sort(), route.path).toEqual(bundle.layers.map((name) => layerIds[name]).sort());
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (bundle.layers.includes('ffmpeg')) expect(env).toMatchObject(layerBinaries);
      else expect(env.FFMPEG_PATH).toBeUndefined();
      if (bundle.layers.includes('qpdf')) expect(env).toMatchObject(qpdfBinary);
      else expect(env.QPDF_PATH).toBeUndefined();
    }
    for (const path of ['/pdf-protect', '/pdf-unlock', '/pdf-info'])
      expect(synth.bundles.get(routes.find((route) => route.path === path)!.function)!.layers).toContain(
        'qpdf',
      );
    const mediaFileRoutes = fileRoutes.filter((route) => route.tag === 'Media');
    for (const route of mediaFileRoutes)
      expect(synth.bundles.get(route.function)!.layers).toContain('ffmpeg');
    expect(synth.bundles.get('ocr')!.layers).toEqual(['sharp', 'tesseract']);
  });

  it('builds the layers for x86_64 and Node.js 24', () => {
    const layers = ofType('AWS::Lambda::LayerVersion');
    expect(layers).toHaveLength(6);
    for (const [, layer] of layers) {
      expect(layer.Properties).toMatchObject({
        CompatibleArchitectures: ['x86_64'],
        CompatibleRuntimes: ['nodejs24.x'],
      });
    }
  });
});

describe('REST API from the route table', () => {
  it('has a method for every route, behind the authorizer and, but for the docs, a usage plan key', () => {
    const authorizerId = ofType('AWS::ApiGateway::Authorizer')[0]![0];
    const quotaFree = routes.filter((route) => route.quotaFree).map((route) => route.path);
    expect(quotaFree.sort()).toEqual(['/docs', '/docs/{asset}', '/openapi.yaml']);
    for (const route of routes) {
      expect(methodFor(route).Properties, `${route.method} ${route.path}`).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        ApiKeyRequired: !route.quotaFree,
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
    }
    const routeMethods = ofType('AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.HttpMethod !== 'OPTIONS',
    );
    expect(routeMethods).toHaveLength(routes.length);
  });

  it('streams exactly the file routes, and buffers the rest', () => {
    for (const route of routes) {
      const integration = methodFor(route).Properties.Integration as Record<string, unknown>;
      const uri = JSON.stringify(integration.Uri);
      if (route.kind === 'file') {
        expect(integration.ResponseTransferMode, route.path).toBe('STREAM');
        expect(uri).toContain('/response-streaming-invocations');
        expect(integration.TimeoutInMillis).toBe(route.sizing.timeoutSeconds * 1000);
      } else {
        expect(integration.ResponseTransferMode ?? 'BUFFERED', route.path).toBe('BUFFERED');
        expect(uri).not.toContain('response-streaming');
        expect(uri).toContain('/invocations');
      }
    }
    const streamed = ofType('AWS::ApiGateway::Method').filter(
      ([, m]) =>
        (m.Properties.Integration as { ResponseTransferMode?: string })?.ResponseTransferMode === 'STREAM',
    );
    expect(streamed).toHaveLength(fileRoutes.length);
  });

  it('answers CORS preflight on every resource, without authorization', () => {
    const paths = resourcePaths();
    const options = ofType('AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.HttpMethod === 'OPTIONS',
    );
    const covered = new Set(options.map(([, m]) => (m.Properties.ResourceId as { Ref?: string }).Ref));
    for (const [resourceId, path] of paths) expect(covered.has(resourceId), path).toBe(true);
    for (const route of routes) expect([...paths.values()]).toContain(route.path);
    for (const [, method] of options) {
      expect(method.Properties.AuthorizationType).toBe('NONE');
      expect(JSON.stringify(method.Properties.Integration)).toContain("'*'");
    }
  });

  it('takes the usage plan key from the authorizer and logs, traces and meters the stage', () => {
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    synth.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: cdkContext().stageName,
      TracingEnabled: true,
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
      MethodSettings: Match.arrayWith([Match.objectLike({ LoggingLevel: 'ERROR', MetricsEnabled: true })]),
    });
  });
});

describe('tiers at the gateway', () => {
  it('authorizes with a REQUEST Lambda authorizer: no identity sources, no caching', () => {
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const [, authorizer] = authorizers[0]!;
    expect(authorizer.Properties).toMatchObject({ Type: 'REQUEST', AuthorizerResultTtlInSeconds: 0 });
    expect(authorizer.Properties.IdentitySource).toBeUndefined();
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(
      logicalId(synth.stack.authorizerFunction),
    );
  });

  it('lets the authorizer read the API keys and the proxy secret parameter, and nothing of the jobs', () => {
    const fnId = logicalId(synth.stack.authorizerFunction);
    const fn = resources[fnId]!;
    expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
      API_KEY_DEPLOYMENT: synth.stack.stackName,
      PROXY_SECRET_PARAMETER: proxySecretParameterName,
    });
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const statements = policyStatementsOf(roleId);
    const actions = actionsOf(statements);
    expect(actions).toEqual(expect.arrayContaining(['apigateway:GET', 'ssm:GetParameter']));
    expect(actions.some((action) => action.startsWith('s3:') || action.startsWith('secretsmanager:'))).toBe(
      false,
    );
    const keyRead = statements.find((statement) => statement.Action === 'apigateway:GET')!;
    expect(JSON.stringify(keyRead.Resource)).toContain('::/apikeys');
    const parameterRead = statements.find((statement) => statement.Action === 'ssm:GetParameter')!;
    expect(JSON.stringify(parameterRead.Resource)).toContain(`:parameter${proxySecretParameterName}`);
  });

  it('has a usage plan per tier whose throttle is the tier table per minute', () => {
    const plans = ofType('AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(tierNames.length);
    const freeTierClients = Number(cdkContext().freeTierClients);
    for (const tier of tierNames) {
      const plan = plans.find(([, p]) => p.Properties.UsagePlanName === `${synth.stack.stackName}-${tier}`);
      expect(plan, tier).toBeDefined();
      const throttle = plan![1].Properties.Throttle as { RateLimit: number; BurstLimit: number };
      const perMinute =
        tier === 'free' ? tiers.free.requestsPerMinute * freeTierClients : tiers[tier].requestsPerMinute;
      expect(throttle.RateLimit * 60).toBeCloseTo(perMinute, 6);
      expect(throttle.BurstLimit).toBe(Math.ceil(perMinute / 10));
      expect(throttle).toEqual({
        RateLimit: throttleFor(planRequestsPerMinute(tier, freeTierClients)).rateLimit,
        BurstLimit: throttleFor(planRequestsPerMinute(tier, freeTierClients)).burstLimit,
      });
    }
    expect(throttleFor(tiers.pro.requestsPerMinute)).toEqual({ rateLimit: 100 / 60, burstLimit: 10 });
  });

  it('attaches the free tier shared key, tagged for the authorizer, to the free plan', () => {
    const keys = ofType('AWS::ApiGateway::ApiKey');
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0]!;
    expect(key.Properties.Tags).toEqual(
      expect.arrayContaining([
        { Key: 'deployment', Value: synth.stack.stackName },
        { Key: 'role', Value: 'free-shared' },
        { Key: 'tier', Value: 'free' },
      ]),
    );
    const freePlanId = logicalId(synth.stack.usagePlans.free);
    synth.template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', {
      KeyId: { Ref: keyId },
      KeyType: 'API_KEY',
      UsagePlanId: { Ref: freePlanId },
    });
  });

  it('limits anonymous calls per IP with a WAF rate rule that answers the contract 429', () => {
    const acls = ofType('AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const acl = acls[0]![1].Properties as {
      Scope: string;
      Rules: Record<string, unknown>[];
      CustomResponseBodies: Record<string, { Content: string; ContentType: string }>;
    };
    expect(acl.Scope).toBe('REGIONAL');
    const rule = acl.Rules.find((candidate) => candidate.Name === 'free-tier-per-ip') as Record<
      string,
      unknown
    >;
    expect(rule.Statement).toEqual({
      RateBasedStatement: {
        Limit: tiers.free.requestsPerMinute,
        EvaluationWindowSec: 60,
        AggregateKeyType: 'IP',
        ScopeDownStatement: {
          AndStatement: {
            Statements: [
              {
                NotStatement: {
                  Statement: {
                    SizeConstraintStatement: {
                      FieldToMatch: { SingleHeader: { Name: 'x-api-key' } },
                      ComparisonOperator: 'GT',
                      Size: 0,
                      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
                    },
                  },
                },
              },
              {
                // The docs page, its assets and openapi.yaml are not counted.
                NotStatement: {
                  Statement: {
                    RegexMatchStatement: {
                      FieldToMatch: { UriPath: {} },
                      RegexString: quotaFreePathPattern,
                      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
                    },
                  },
                },
              },
            ],
          },
        },
      },
    });
    const response = (rule.Action as unknown as { Block: { CustomResponse: Record<string, unknown> } }).Block
      .CustomResponse;
    expect(response.ResponseCode).toBe(429);
    expect(response.ResponseHeaders).toEqual(expect.arrayContaining([{ Name: 'Retry-After', Value: '60' }]));
    const body = acl.CustomResponseBodies[response.CustomResponseBodyKey as string]!;
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual(freeTierRateLimitedBody);
    expect(freeTierRateLimitedBody).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String) });

    const quotaFree = new RegExp(quotaFreePathPattern);
    for (const path of ['/prod/docs', '/prod/docs/swagger-ui.css', '/prod/openapi.yaml', '/docs']) {
      expect(quotaFree.test(path), path).toBe(true);
    }
    for (const path of [
      '/prod/image-convert',
      '/prod/status',
      '/prod/docsx',
      '/prod/docs/a/b',
      '/prod/openapi-yaml',
    ]) {
      expect(quotaFree.test(path), path).toBe(false);
    }

    const association = ofType('AWS::WAFv2::WebACLAssociation')[0]![1];
    const stageId = logicalId(synth.stack.api.deploymentStage);
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
    expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acls[0]![0], 'Arn'] });
  });
});

describe('gateway responses in the contract shape', () => {
  const expected = [
    ['UNAUTHORIZED', 401, 'invalid_api_key'],
    ['INVALID_API_KEY', 401, 'invalid_api_key'],
    ['ACCESS_DENIED', 403, 'invalid_proxy_secret'],
    ['THROTTLED', 429, 'rate_limit_exceeded'],
    ['QUOTA_EXCEEDED', 429, 'rate_limit_exceeded'],
    ['REQUEST_TOO_LARGE', 413, 'request_too_large'],
    ['MISSING_AUTHENTICATION_TOKEN', 404, 'not_found'],
    ['DEFAULT_4XX', 'its own status', 'invalid_input'],
    ['DEFAULT_5XX', 'its own status', 'internal_error'],
  ] as const;

  it.each(expected)('%s answers %s with {error: %s}', (type, answer, code) => {
    const status = typeof answer === 'number' ? answer : undefined;
    const found = ofType('AWS::ApiGateway::GatewayResponse').find(
      ([, r]) => r.Properties.ResponseType === type,
    );
    expect(found).toBeDefined();
    const properties = found![1].Properties as {
      StatusCode?: string;
      ResponseParameters: Record<string, string>;
      ResponseTemplates: Record<string, string>;
    };
    expect(properties.StatusCode).toBe(status === undefined ? undefined : String(status));
    if (status !== undefined) expect(errorStatus[code]).toBe(status);
    expect(properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.X-Request-Id': 'context.requestId',
    });
    if (code === 'rate_limit_exceeded') {
      expect(properties.ResponseParameters['gatewayresponse.header.Retry-After']).toMatch(/^'\d+'$/);
    }
    // Stand in for what API Gateway substitutes, then the body must be the contract's JSON.
    const body = properties.ResponseTemplates['application/json']!.replace(
      '$context.error.messageString',
      JSON.stringify('Missing Authentication Token'),
    ).replace('$context.requestId', 'c0ffee');
    expect(JSON.parse(body)).toEqual({ error: code, message: expect.any(String) });
  });
});

describe('storage of async jobs', () => {
  it('keeps jobs in an encrypted, private, TLS-only bucket that forgets them after a day', () => {
    synth.template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 1, Status: 'Enabled' })]),
      },
    });
    synth.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('grants the bucket to the file functions (and read to the jobs route), the webhook secret to the file functions, nothing to the rest', () => {
    const bucketId = logicalId(synth.stack.storage.bucket);
    const secretId = logicalId(synth.stack.storage.webhookSecret);
    for (const route of routes) {
      const fn = functionOf(route);
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
      const statements = policyStatementsOf(roleId);
      const actions = actionsOf(statements);
      const onBucket = statements.some((statement) => JSON.stringify(statement.Resource).includes(bucketId));
      if (route.kind === 'file') {
        expect(env.JOBS_BUCKET, route.path).toEqual({ Ref: bucketId });
        expect(env.WEBHOOK_SECRET_ARN, route.path).toEqual({ Ref: secretId });
        expect(actions, route.path).toEqual(
          expect.arrayContaining(['s3:PutObject', 'secretsmanager:GetSecretValue']),
        );
        expect(actions, route.path).toContain('lambda:InvokeFunction');
        const secretRead = statements.filter((statement) =>
          actionsOf([statement]).some((action) => action.startsWith('secretsmanager:')),
        );
        expect(
          secretRead.map((statement) => statement.Resource),
          route.path,
        ).toEqual([{ Ref: secretId }]);
      } else if (route.jobStore === 'upload') {
        // Its grants are asserted in ./stack/uploads.ts.
        expect(env.JOBS_BUCKET, route.path).toEqual({ Ref: bucketId });
      } else if (route.tag === 'Jobs') {
        expect(env.JOBS_BUCKET, route.path).toEqual({ Ref: bucketId });
        expect(actions, route.path).toContain('s3:GetObject*');
        expect(
          actions.some((action) => action.startsWith('s3:Put') || action.startsWith('secretsmanager:')),
          route.path,
        ).toBe(false);
        expect(env.WEBHOOK_SECRET_ARN, route.path).toBeUndefined();
      } else {
        expect(onBucket, route.path).toBe(false);
        expect(env.JOBS_BUCKET, route.path).toBeUndefined();
        expect(env.WEBHOOK_SECRET_ARN, route.path).toBeUndefined();
        expect(
          actions.some((action) => action.startsWith('secretsmanager:')),
          route.path,
        ).toBe(false);
      }
    }
  });

  it('lets a file function invoke itself and no other function', () => {
    for (const route of fileRoutes) {
      const fn = synth.stack.functions.get(route.function)!;
      const fnId = logicalId(fn);
      const roleId = (resources[fnId]!.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
      const invoke = policyStatementsOf(roleId).filter(
        (statement) => statement.Action === 'lambda:InvokeFunction',
      );
      expect(invoke.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': [fnId, 'Arn'] }]);
    }
  });

  it("drops a file function's async run that has not started within the jobs' start window", () => {
    const configs = ofType('AWS::Lambda::EventInvokeConfig');
    expect(configs).toHaveLength(new Set(fileRoutes.map((route) => route.function)).size);
    for (const route of fileRoutes) {
      const fnId = logicalId(synth.stack.functions.get(route.function)!);
      const config = configs.find(([, resource]) =>
        JSON.stringify(resource.Properties.FunctionName).includes(fnId),
      );
      expect(config?.[1].Properties, route.path).toMatchObject({
        MaximumEventAgeInSeconds: JOB_START_WINDOW_MS / 1000,
        MaximumRetryAttempts: 2,
      });
    }
  });
});

describe('checks', () => {
  it('passes cdk-nag AwsSolutions with no unacknowledged finding: alarms, dashboard, budget and the office image included', () => {
    const report = new AwsSolutionsChecks(synth.app).validateScope(synth.app);
    const findings = report.violations.map(
      (violation) =>
        `${violation.ruleName} @ ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('stays well inside CloudFormation 500 resources per stack: each route family in a nested stack of its own', () => {
    const stacks = [synth.stack, ...synth.stack.families.values(), synth.stack.monitoring];
    for (const stack of stacks)
      expect(Object.keys(synth.resourcesOf(stack)).length, stack.node.id).toBeLessThan(450);
    expect([...synth.stack.families.keys()].sort()).toEqual(
      [...new Set(routes.map((route) => route.tag))].sort(),
    );
    for (const route of routes) {
      const fn = synth.stack.functions.get(route.function)!;
      expect(Stack.of(fn), route.path).toBe(synth.stack.families.get(route.tag));
    }
  });

  it('fails loudly when a route names a function without a handler', async () => {
    const missing = `missing-${process.pid}`;
    await expect(
      bundleFunctions({
        rootDir: projectRoot,
        outDir: join(projectRoot, '.tmp', 'never'),
        names: [routes[0]!.function, missing],
      }),
    ).rejects.toThrow(`functions/${missing}/handler.ts`);
  });

  it('refuses a route whose function was not bundled', () => {
    const row: RouteSpec = { ...routes[0]!, path: '/not-bundled', function: 'not-bundled' };
    expect(
      () =>
        new FileConversionStack(new App(), 'Other', {
          bundles: synth.bundles,
          layers: synth.layers,
          routes: [row],
        }),
    ).toThrow('No bundle for functions/not-bundled');
  });
});
