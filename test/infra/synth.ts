import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { routes } from '#shared/routes.ts';
import { buildBrowserLayers } from '../../infra/stack/browser-layer.ts';
import { bundleFunctions, type FunctionBundles, type LayerName } from '../../infra/stack/bundle.ts';
import {
  authorizerFunction,
  FileConversionStack,
  type FileConversionStackProps,
} from '../../infra/stack/stack.ts';
import { buildFfmpegLayer } from '../../layers/ffmpeg/build.ts';
import { type BuiltLayer, projectRoot } from '../../layers/layer.ts';
import { buildSharpLayer } from '../../layers/sharp/build.ts';
import { buildTesseractLayer } from '../../layers/tesseract/build.ts';

export interface Synthesized {
  app: App;
  stack: FileConversionStack;
  template: Template;
  bundles: FunctionBundles;
  layers: Record<LayerName, BuiltLayer>;
  /** Removes the bundles and the cloud assembly. */
  cleanUp(): void;
}

/** The context `cdk synth` reads from cdk.json, so that the tests see what would deploy. */
export const cdkContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

/** Builds the layers, bundles every function of the route table and synthesizes the stack once. */
export type SynthOptions = Partial<
  Pick<
    FileConversionStackProps,
    | 'proxySecretParameterName'
    | 'alarmEmail'
    | 'monthlyBudgetUsd'
    | 'accountConcurrency'
    | 'reservedConcurrency'
  >
>;

export async function synthesize(options: SynthOptions = {}): Promise<Synthesized> {
  const scratch = mkdtempSync(join(tmpdir(), 'infra-synth-'));
  const layers = {
    sharp: buildSharpLayer(),
    ffmpeg: buildFfmpegLayer(),
    tesseract: buildTesseractLayer(),
    ...buildBrowserLayers(),
  };
  const bundles = await bundleFunctions({
    rootDir: projectRoot,
    outDir: join(scratch, 'functions'),
    names: [...routes.map((route) => route.function), authorizerFunction],
  });
  const context = cdkContext();
  const app = new App({ outdir: join(scratch, 'cdk.out'), context });
  const stack = new FileConversionStack(app, String(context.stackName), {
    bundles,
    layers,
    stageName: String(context.stageName),
    freeTierClients: Number(context.freeTierClients),
    ...options,
  });
  const template = Template.fromStack(stack);
  return {
    app,
    stack,
    template,
    bundles,
    layers,
    cleanUp: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** The options of the one synthesis the stack's test suites share: every optional part switched on. */
export const sharedOptions = {
  proxySecretParameterName: '/file-conversion/proxy-secret',
  alarmEmail: 'operations@example.com',
  monthlyBudgetUsd: 250,
} as const satisfies SynthOptions;

let shared: Promise<Synthesized> | undefined;

/**
 * One synthesis per test file (bundling every function and hashing the layers takes most of a
 * minute on a loaded machine), read by the suites of test/infra/stack/ that stack.test.ts runs.
 */
export function sharedSynthesis(): Promise<Synthesized> {
  shared ??= synthesize(sharedOptions);
  return shared;
}
