import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { allocatorEnvironment } from '#shared/routes/sizing.ts';
import { projectRoot } from '../../layers/layer.ts';
import { type ApiFunctionProps, acknowledgeFunctionRole } from './api-function.ts';
import type { FunctionBundle } from './bundle.ts';

/** The route table's function that runs LibreOffice, and so is a container image. */
export const officeFunctionName = 'office-to-pdf';

/** The recipe of the image (Debian 12, the -nogui LibreOffice packages, Node 24, the runtime client). */
export const officeDockerfile = join(projectRoot, 'layers', 'office', 'Dockerfile');

/**
 * The image's build context: the Dockerfile and the function's bundle, copied beside the bundle's
 * own folder, so that Docker is sent a few hundred KiB rather than the repository. CDK hashes the
 * folder's content for the asset, so an unchanged bundle makes an unchanged image.
 */
export function stageImageContext(bundle: FunctionBundle): string {
  const context = join(dirname(bundle.dir), `${bundle.name.replaceAll('/', '--')}.image`);
  rmSync(context, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  cpSync(officeDockerfile, join(context, 'Dockerfile'));
  cpSync(bundle.dir, join(context, 'bundle'), { recursive: true });
  return context;
}

/**
 * /office-to-pdf as a container-image function: the same sizing, tracing, logs and environment as
 * every ApiFunction, but its code is an image built from layers/office/Dockerfile, since
 * LibreOffice does not fit in a layer. It takes ApiFunctionProps so the stack's loop can build it
 * in place of an ApiFunction; it has no layers (the image holds everything).
 */
export class OfficeFunction extends lambda.DockerImageFunction {
  readonly bundle: FunctionBundle;
  readonly reservedConcurrency: number | undefined;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const { bundle, sizing } = props;
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      description: props.description,
      code: lambda.DockerImageCode.fromImageAsset(stageImageContext(bundle), {
        platform: Platform.LINUX_AMD64,
      }),
      architecture: lambda.Architecture.X86_64,
      memorySize: sizing.memoryMiB,
      timeout: Duration.seconds(sizing.timeoutSeconds),
      ephemeralStorageSize: Size.mebibytes(sizing.ephemeralMiB),
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...allocatorEnvironment, ...props.environment },
    });
    this.bundle = bundle;
    this.reservedConcurrency = props.reservedConcurrency;

    acknowledgeFunctionRole(this);
  }
}
