import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes } from '#shared/routes.ts';
import { buildFfmpegLayer } from '../layers/ffmpeg/build.ts';
import { projectRoot } from '../layers/layer.ts';
import { buildQpdfLayer } from '../layers/qpdf/build.ts';
import { buildSharpLayer } from '../layers/sharp/build.ts';
import { buildTesseractLayer } from '../layers/tesseract/build.ts';
import { buildBrowserLayers } from './stack/browser-layer.ts';
import { bundleFunctions } from './stack/bundle.ts';
import { authorizerFunction, FileConversionStack } from './stack/stack.ts';

/**
 * The CDK app: builds the native layers (when their inputs changed), bundles every function of the
 * route table (one esbuild build for all), and checks the stack with cdk-nag's AwsSolutions pack, whose
 * findings fail the synth. Settings come from cdk.json context or `-c name=value`.
 */
const app = new App();
const context = (name: string): string | undefined => app.node.tryGetContext(name) ?? undefined;

const stackName = context('stackName') ?? 'FileConversionApi';
const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  version: string;
};

const layers = {
  sharp: buildSharpLayer(),
  ffmpeg: buildFfmpegLayer(),
  qpdf: buildQpdfLayer(),
  tesseract: buildTesseractLayer(),
  ...buildBrowserLayers(),
};
const bundles = await bundleFunctions({
  rootDir: projectRoot,
  // A build cache that git and the linter already leave alone.
  outDir: join(projectRoot, 'node_modules', '.cache', 'infra', 'functions'),
  names: [...routes.map((route) => route.function), authorizerFunction],
});

// Environment-agnostic: the template names no account or region, and deploys wherever the
// credentials of `cdk deploy` point.
new FileConversionStack(app, stackName, {
  bundles,
  layers,
  stageName: context('stageName'),
  proxySecretParameterName: context('proxySecretParameter'),
  freeTierClients: context('freeTierClients') ? Number(context('freeTierClients')) : undefined,
  alarmEmail: context('alarmEmail'),
  monthlyBudgetUsd: context('monthlyBudgetUsd') ? Number(context('monthlyBudgetUsd')) : undefined,
  accountConcurrency: context('accountConcurrency') ? Number(context('accountConcurrency')) : undefined,
  reservedConcurrency: String(context('reservedConcurrency') ?? 'true') !== 'false',
  serviceVersion: version,
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
