import { createHash } from 'node:crypto';
import {
  AssetHashType,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Tags,
  Validations,
} from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { corsPreflight } from '#shared/http/headers.ts';
import { JOB_START_WINDOW_MS } from '#shared/jobs/record.ts';
import { authorizerSizing } from '#shared/routes/sizing.ts';
import { routeName } from '#shared/routes/types.ts';
import { type RouteSpec, routes as routeTable } from '#shared/routes.ts';
import { tierNames } from '#shared/tiers.ts';
import type { BuiltLayer } from '../../layers/layer.ts';
import type { WatchedFunction } from './alarms.ts';
import { ApiFunction, type NativeLayer } from './api-function.ts';
import { browserLayerDescriptions } from './browser-layer.ts';
import type { FunctionBundle, FunctionBundles, LayerName } from './bundle.ts';
import { assertReservationsFit, defaultAccountConcurrency, reservedConcurrencyFor } from './concurrency.ts';
import { FreeTierWaf } from './free-tier-waf.ts';
import { addGatewayResponses } from './gateway-responses.ts';
import { JobStorage } from './job-storage.ts';
import { Monitoring } from './monitoring.ts';
import { OfficeFunction, officeFunctionName } from './office-function.ts';
import { RouteFamily } from './route-family.ts';
import { defaultFreeTierClients, planRequestsPerMinute, throttleFor } from './throttle.ts';

/** The gateway authorizer's folder under functions/. */
export const authorizerFunction = 'authorizer';

export interface FileConversionStackProps extends StackProps {
  /** One bundle per function of the route table, plus the authorizer's (bundleFunctions). */
  bundles: FunctionBundles;
  /** The built native layers (layers/<name>/build.ts). */
  layers: Record<LayerName, BuiltLayer>;
  /** Defaults to the route table; tests pass their own rows. */
  routes?: readonly RouteSpec[];
  stageName?: string;
  /** An SSM SecureString parameter with the marketplace proxy secret; unset: none required. */
  proxySecretParameterName?: string;
  /** How many anonymous clients the free tier's shared usage plan is sized for. */
  freeTierClients?: number;
  /** Shown by GET /status. */
  serviceVersion?: string;
  /** Where alarm notifications are mailed; unset: they go to the SNS topic only. */
  alarmEmail?: string | undefined;
  /** An account-wide monthly AWS Budgets alarm, in USD; unset: none. */
  monthlyBudgetUsd?: number | undefined;
  /** The account's Lambda concurrency limit in this region (default 1000). */
  accountConcurrency?: number | undefined;
  /** Reserve concurrency per function (the cost ceiling); default true. */
  reservedConcurrency?: boolean | undefined;
}

/** The route's function, in the words of the route table. */
const describeRoute = (route: RouteSpec) => `${route.method} ${route.path}: ${route.summary}`.slice(0, 256);

/** A construct id from a function folder name: `image-convert` → `ImageConvert`. */
const constructId = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

/**
 * The whole service: one Lambda function per row of the route table behind a REST API whose
 * authorizer applies the contract's tiers, usage plans that throttle each tier, a WAF rule for the
 * free tier's per-IP limit, and the storage of async jobs.
 */
export class FileConversionStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly functions: ReadonlyMap<string, ApiFunction>;
  /** One nested stack per route family (the route table's tags), holding its functions. */
  readonly families: ReadonlyMap<string, RouteFamily>;
  readonly authorizerFunction: ApiFunction;
  readonly storage: JobStorage;
  readonly usagePlans: Readonly<Record<(typeof tierNames)[number], apigateway.UsagePlan>>;
  readonly freeTierKey: apigateway.ApiKey;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: FileConversionStackProps) {
    super(scope, id, props);
    const routes = props.routes ?? routeTable;
    const stageName = props.stageName ?? 'v1';
    const bundleOf = (name: string): FunctionBundle => {
      const bundle = props.bundles.get(name);
      if (!bundle)
        throw new Error(`No bundle for functions/${name}; bundle every function of the route table first`);
      return bundle;
    };
    assertRoutesAreDistinct(routes);

    const layers = this.nativeLayers(props.layers);
    this.storage = new JobStorage(this, 'Jobs');
    const commonEnvironment = {
      LOG_LEVEL: 'info',
      SERVICE_VERSION: props.serviceVersion ?? '0.0.0',
      // The request lines' metrics (embedded metric format) land in a namespace of this deployment.
      POWERTOOLS_METRICS_NAMESPACE: this.stackName,
    };
    const freeTierClients = props.freeTierClients ?? defaultFreeTierClients;
    const reserve = props.reservedConcurrency ?? true;

    // One function per function folder (several rows may share one; none does today), in the
    // nested stack of its family.
    const families = new Map<string, RouteFamily>();
    const familyOf = (tag: string): RouteFamily => {
      let family = families.get(tag);
      if (!family) {
        family = new RouteFamily(this, `${constructId(tag)}Routes`, {
          family: tag,
          serviceName: this.stackName,
        });
        families.set(tag, family);
      }
      return family;
    };
    const functions = new Map<string, ApiFunction>();
    for (const route of routes) {
      if (functions.has(route.function)) continue;
      const rowsOfFunction = routes.filter((row) => row.function === route.function);
      // LibreOffice does not fit in a layer: that one function is a container image.
      const FunctionClass = route.function === officeFunctionName ? OfficeFunction : ApiFunction;
      const fn = new FunctionClass(familyOf(route.tag), `${constructId(route.function)}Function`, {
        bundle: bundleOf(route.function),
        sizing: route.sizing,
        layers,
        description: describeRoute(route),
        reservedConcurrency: reserve ? reservedConcurrencyFor(route.tag, freeTierClients) : undefined,
        environment: {
          ...commonEnvironment,
          ...(rowsOfFunction.some((row) => row.jobStore !== undefined)
            ? { JOBS_BUCKET: this.storage.bucket.bucketName }
            : {}),
          ...(rowsOfFunction.some((row) => row.jobStore === 'run')
            ? { WEBHOOK_SECRET_ARN: this.storage.webhookSecret.secretArn }
            : {}),
        },
      });
      if (rowsOfFunction.some((row) => row.jobStore === 'run')) this.grantJobRunner(fn);
      else if (rowsOfFunction.some((row) => row.jobStore === 'read')) this.storage.grantJobReader(fn);
      else if (rowsOfFunction.some((row) => row.jobStore === 'upload')) this.storage.grantUploader(fn);
      functions.set(route.function, fn);
    }
    this.functions = functions;
    this.families = families;

    this.authorizerFunction = new ApiFunction(this, 'AuthorizerFunction', {
      bundle: bundleOf(authorizerFunction),
      sizing: authorizerSizing,
      layers,
      description: 'Gateway authorizer: proxy secret, API key and tier',
      reservedConcurrency: reserve ? reservedConcurrencyFor('Authorizer', freeTierClients) : undefined,
      environment: {
        ...commonEnvironment,
        API_KEY_DEPLOYMENT: this.stackName,
        ...(props.proxySecretParameterName ? { PROXY_SECRET_PARAMETER: props.proxySecretParameterName } : {}),
      },
    });
    this.grantKeyLookup(this.authorizerFunction, props.proxySecretParameterName);

    this.api = this.restApi(stageName);
    const authorizer = new apigateway.RequestAuthorizer(this, 'Authorizer', {
      handler: this.authorizerFunction,
      // Every request is judged on its own headers: no identity sources, nothing cached.
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
      authorizerName: `${this.stackName}-tiers`,
    });
    // CDK writes the empty list as IdentitySource "", which is no identity-source expression;
    // without caching the property is optional, so it is left out.
    (authorizer.node.defaultChild as apigateway.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    for (const route of routes) {
      const fn = functions.get(route.function)!;
      const sizing = route.sizing;
      const streamed = route.kind === 'file';
      const integration = new apigateway.LambdaIntegration(fn, {
        allowTestInvoke: false,
        ...(streamed
          ? {
              responseTransferMode: apigateway.ResponseTransferMode.STREAM,
              timeout: Duration.seconds(sizing.timeoutSeconds),
            }
          : {}),
      });
      this.api.root.resourceForPath(route.path).addMethod(route.method, integration, {
        authorizer,
        authorizationType: apigateway.AuthorizationType.CUSTOM,
        // quotaFree rows (the docs page and the document it reads) count against no usage plan.
        apiKeyRequired: !route.quotaFree,
      });
    }
    addGatewayResponses(this.api);

    const plans = this.tierPlans(freeTierClients);
    this.usagePlans = plans.usagePlans;
    this.freeTierKey = plans.freeTierKey;
    const waf = new FreeTierWaf(this, 'FreeTierWaf', { stage: this.api.deploymentStage });
    this.acknowledgeGatewayFindings();

    if (reserve) {
      assertReservationsFit(
        [...functions.values(), this.authorizerFunction].map((fn) => fn.reservedConcurrency ?? 0),
        props.accountConcurrency ?? defaultAccountConcurrency,
      );
    }
    this.monitoring = this.monitor(routes, waf, props);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API stage' });
    new CfnOutput(this, 'JobsBucketName', { value: this.storage.bucket.bucketName });
    new CfnOutput(this, 'WebhookSecretArn', { value: this.storage.webhookSecret.secretArn });
  }

  /** Alarms and the dashboard, one dashboard row per route family (the route table's tags). */
  private monitor(
    routes: readonly RouteSpec[],
    waf: FreeTierWaf,
    props: FileConversionStackProps,
  ): Monitoring {
    const families = new Map<string, WatchedFunction[]>();
    for (const route of routes) {
      const fn = this.functions.get(route.function)!;
      const family = families.get(route.tag) ?? [];
      if (family.some((watched) => watched.fn === fn)) continue;
      family.push({
        name: route.function,
        fn,
        timeoutSeconds: route.sizing.timeoutSeconds,
        metricRoute: routeName(route),
        runsJobs: route.jobStore === 'run',
      });
      families.set(route.tag, family);
    }
    return new Monitoring(this, 'Monitoring', {
      serviceName: this.stackName,
      families: [...families].map(([family, functions]) => ({ family, functions })),
      authorizer: {
        name: authorizerFunction,
        fn: this.authorizerFunction,
        timeoutSeconds: authorizerSizing.timeoutSeconds,
        runsJobs: false,
      },
      webAcl: waf.webAcl,
      alarmEmail: props.alarmEmail,
      monthlyBudgetUsd: props.monthlyBudgetUsd,
    });
  }

  private nativeLayers(built: Record<LayerName, BuiltLayer>): Record<LayerName, NativeLayer> {
    const descriptions: Record<LayerName, string> = {
      sharp: 'sharp and libvips for linux-x64, under nodejs/node_modules',
      ffmpeg: 'Static ffmpeg and ffprobe for linux-x64, under bin/',
      qpdf: 'Static qpdf for linux-x64, under bin/',
      tesseract: "Debian 12's tesseract, its libraries and language data, under tesseract/",
      ...browserLayerDescriptions,
    };
    const layerOf = (name: LayerName): NativeLayer => {
      const layer = built[name];
      const inputs = Object.entries(layer.inputs).sort();
      const version = new lambda.LayerVersion(this, `${constructId(name)}Layer`, {
        // The layer is determined by its inputs (package versions, recipe): hashing them spares
        // reading the ~160 MiB of binaries on every synth.
        code: lambda.Code.fromAsset(layer.dir, {
          assetHashType: AssetHashType.CUSTOM,
          assetHash: createHash('sha256').update(JSON.stringify(inputs)).digest('hex'),
        }),
        compatibleRuntimes: [lambda.Runtime.NODEJS_24_X],
        compatibleArchitectures: [lambda.Architecture.X86_64],
        description: `${descriptions[name]} (${inputs.map(([pkg, at]) => `${pkg}@${at}`).join(', ')})`.slice(
          0,
          256,
        ),
        removalPolicy: RemovalPolicy.DESTROY,
      });
      return { version, sizeBytes: layer.sizeBytes };
    };
    return {
      sharp: layerOf('sharp'),
      ffmpeg: layerOf('ffmpeg'),
      qpdf: layerOf('qpdf'),
      tesseract: layerOf('tesseract'),
      chromium: layerOf('chromium'),
      fonts: layerOf('fonts'),
    };
  }

  /**
   * A file function writes job records and results, signs webhooks and starts its own async
   * runs, which wait at most the jobs' start window. The self-invocation right sits in a policy of its own: in the role's default policy it
   * would make the function depend on itself.
   */
  private grantJobRunner(fn: ApiFunction): void {
    this.storage.grantJobRunner(fn);
    // A run Lambda could not start within the window is dropped; the job then reads as failed.
    fn.configureAsyncInvoke({ maxEventAge: Duration.millis(JOB_START_WINDOW_MS), retryAttempts: 2 });
    const selfInvoke = new iam.Policy(fn, 'SelfInvoke', {
      statements: [
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      ],
    });
    fn.role!.attachInlinePolicy(selfInvoke);
  }

  /** The authorizer reads this deployment's API keys and, when configured, the proxy secret. */
  private grantKeyLookup(fn: ApiFunction, proxySecretParameterName: string | undefined): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        // GetApiKeys: API Gateway's control plane is authorized by HTTP verb and resource path.
        actions: ['apigateway:GET'],
        resources: [this.formatArn({ service: 'apigateway', account: '', resource: '/apikeys' })],
      }),
    );
    if (proxySecretParameterName) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['ssm:GetParameter'],
          resources: [
            this.formatArn({
              service: 'ssm',
              resource: 'parameter',
              resourceName: proxySecretParameterName.replace(/^\//, ''),
            }),
          ],
        }),
      );
    }
  }

  private restApi(stageName: string): apigateway.RestApi {
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    return new apigateway.RestApi(this, 'Api', {
      restApiName: this.stackName,
      description: 'File conversion and utility API',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // Usage plans throttle by the key the authorizer names, with or without an x-api-key.
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      defaultCorsPreflightOptions: {
        allowOrigins: apigateway.Cors.ALL_ORIGINS,
        allowMethods: [...corsPreflight.allowMethods],
        allowHeaders: [...corsPreflight.allowHeaders],
        maxAge: Duration.seconds(corsPreflight.maxAgeSeconds),
      },
      // Execution and access logs need the account's API Gateway logging role.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
    });
  }

  /**
   * One usage plan per tier, its throttle from the tier table. Paid keys are attached by
   * scripts/api-keys.ts; the free tier's shared key, which the authorizer names for anonymous
   * calls, is made here.
   */
  private tierPlans(freeTierClients: number) {
    const stage = this.api.deploymentStage;
    const usagePlans = Object.fromEntries(
      tierNames.map((tier) => {
        const plan = this.api.addUsagePlan(`${constructId(tier)}Plan`, {
          name: `${this.stackName}-${tier}`,
          description: `Tier ${tier}: ${planRequestsPerMinute(tier, freeTierClients)} requests per minute per key`,
          throttle: throttleFor(planRequestsPerMinute(tier, freeTierClients)),
          apiStages: [{ api: this.api, stage }],
        });
        return [tier, plan];
      }),
    ) as Record<(typeof tierNames)[number], apigateway.UsagePlan>;
    const freeTierKey = new apigateway.ApiKey(this, 'FreeTierKey', {
      apiKeyName: `${this.stackName}-free-shared`,
      description: 'Usage identifier of anonymous calls (never handed out)',
      enabled: true,
    });
    Tags.of(freeTierKey).add('deployment', this.stackName);
    Tags.of(freeTierKey).add('tier', 'free');
    Tags.of(freeTierKey).add('role', 'free-shared');
    usagePlans.free.addApiKey(freeTierKey);
    return { usagePlans, freeTierKey };
  }

  private acknowledgeGatewayFindings(): void {
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Bodies are validated by each handler against the route table zod schema, which answers 400 validation_failed naming every field, as the contract requires; a gateway validator could not.',
      },
      {
        id: 'AwsSolutions-APIG4',
        reason:
          'Only the CORS preflight OPTIONS methods are open: browsers send preflights without credentials, so they cannot be authorized. Every route method uses the Lambda authorizer.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Callers authenticate with marketplace API keys and a proxy secret, not Cognito users; the Lambda authorizer applies those rules.',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The AWS-maintained policy of the account-wide API Gateway logging role, needed for access and execution logs.',
      },
    );
  }
}

function assertRoutesAreDistinct(routes: readonly RouteSpec[]): void {
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`The route table lists ${key} twice`);
    seen.add(key);
  }
}
