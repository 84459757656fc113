import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { allocatorEnvironment, type FunctionSizing } from '#shared/routes/sizing.ts';
import { browserEnvironment } from './browser-layer.ts';
import type { FunctionBundle, LayerName } from './bundle.ts';

/** Lambda's limit on a function's code plus all its layers, unzipped. */
export const unzippedLimitBytes = 250 * 1024 * 1024;

/** Where the ffmpeg layer's binaries appear in the function's file system. */
export const layerBinaries = { FFMPEG_PATH: '/opt/bin/ffmpeg', FFPROBE_PATH: '/opt/bin/ffprobe' } as const;

/** Where the qpdf layer's binary appears. */
export const qpdfBinary = { QPDF_PATH: '/opt/bin/qpdf' } as const;

export interface NativeLayer {
  version: lambda.ILayerVersion;
  sizeBytes: number;
}

export interface ApiFunctionProps {
  bundle: FunctionBundle;
  sizing: FunctionSizing;
  /** The layers the stack offers; the function gets those its bundle needs. */
  layers: Record<LayerName, NativeLayer>;
  description: string;
  environment?: Record<string, string>;
  logRetention?: logs.RetentionDays;
  /** The function's ceiling on concurrent executions (infra/stack/concurrency.ts); unset: none. */
  reservedConcurrency?: number | undefined;
}

/**
 * Every function of the API, one construct with the defaults: Node.js 24 on x86_64 (the layers'
 * binaries are linux-x64), the prebuilt bundle, source-mapped stack traces, X-Ray tracing and a
 * log group that expires its logs.
 */
export class ApiFunction extends lambda.Function {
  readonly bundle: FunctionBundle;
  readonly reservedConcurrency: number | undefined;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { bundle, sizing } = props;
    const layers = bundle.layers.map((name) => props.layers[name]);
    const unzipped = bundle.sizeBytes + layers.reduce((sum, layer) => sum + layer.sizeBytes, 0);
    if (unzipped > unzippedLimitBytes) {
      throw new Error(
        `Function ${bundle.name} with layers ${bundle.layers.join(', ')} is ${unzipped} bytes unzipped; Lambda allows ${unzippedLimitBytes}`,
      );
    }
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.X86_64,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(bundle.dir),
      memorySize: sizing.memoryMiB,
      timeout: Duration.seconds(sizing.timeoutSeconds),
      ephemeralStorageSize: Size.mebibytes(sizing.ephemeralMiB),
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      layers: layers.map((layer) => layer.version),
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...allocatorEnvironment,
        ...(bundle.layers.includes('ffmpeg') ? layerBinaries : {}),
        ...(bundle.layers.includes('fonts') ? { FONTCONFIG_FILE: browserEnvironment.FONTCONFIG_FILE } : {}),
        ...(bundle.layers.includes('qpdf') ? qpdfBinary : {}),
        ...(bundle.layers.includes('chromium') ? browserEnvironment : {}),
        ...props.environment,
      },
    });
    this.bundle = bundle;
    this.reservedConcurrency = props.reservedConcurrency;

    acknowledgeFunctionRole(this);
  }
}

/**
 * The two cdk-nag findings every function's role raises, with why they stand: the managed logs
 * policy and X-Ray's wildcard.
 */
export function acknowledgeFunctionRole(fn: lambda.Function): void {
  Validations.of(fn).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'AWSLambdaBasicExecutionRole only lets the function write its own CloudWatch logs; it is the policy AWS maintains for exactly that.',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only X-Ray tracing asks for "*": PutTraceSegments and PutTelemetryRecords have no resource-level permissions.',
    },
  );
}
