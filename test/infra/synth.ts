import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
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
import { buildQpdfLayer } from '../../layers/qpdf/build.ts';
import { buildSharpLayer } from '../../layers/sharp/build.ts';
import { buildTesseractLayer } from '../../layers/tesseract/build.ts';

export type Resource = { Type: string; Properties: Record<string, unknown> & { [key: string]: unknown } };

export interface Synthesized {
  app: App;
  stack: FileConversionStack;
  /** The service stack's own template. */
  template: Template;
  /**
   * The resources of the service stack and of every nested stack in one map, each reference across
   * stacks (a nested stack's parameter, an output of a nested stack) replaced by what it stands for:
   * a function's `{Ref: bucketId}` reads as in a single stack.
   */
  resources: Record<string, Resource>;
  /** The resources of one stack (the service stack or a nested one), references resolved the same way. */
  resourcesOf(stack: Stack): Record<string, Resource>;
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
    qpdf: buildQpdfLayer(),
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
  const flat = flattenStacks(stack);
  return {
    app,
    stack,
    template,
    resources: flat.resources,
    resourcesOf: flat.resourcesOf,
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

/** A construct's logical id in its own stack (the service stack or a nested one). */
export const logicalIdOf = (construct: { node: { defaultChild?: unknown } }): string => {
  const element = construct.node.defaultChild as CfnElement;
  return Stack.of(element).getLogicalId(element);
};

type Json = {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
};

/**
 * Reads the service stack and its nested stacks as one: a nested stack's `{Ref: parameter}` becomes
 * the value the service stack passes for it, and the service stack's `Fn::GetAtt [nested,
 * Outputs.name]` the value the nested stack outputs, until no reference across stacks is left.
 */
function flattenStacks(root: Stack) {
  const templates = new Map<Stack, Json>([[root, Template.fromStack(root).toJSON() as Json]]);
  const nestedById = new Map<string, NestedStack>();
  for (const child of root.node.findAll()) {
    if (!NestedStack.isNestedStack(child) || child.nestedStackParent !== root) continue;
    templates.set(child, Template.fromStack(child).toJSON() as Json);
    nestedById.set(root.getLogicalId(child.nestedStackResource as CfnElement), child);
  }
  const rootJson = templates.get(root)!;
  const resolve = (value: unknown, stack: Stack): unknown => {
    if (Array.isArray(value)) return value.map((item) => resolve(item, stack));
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    const own = templates.get(stack)!;
    if (stack !== root && typeof record.Ref === 'string' && own.Parameters && record.Ref in own.Parameters) {
      const nestedId = root.getLogicalId((stack as NestedStack).nestedStackResource as CfnElement);
      const passed = (rootJson.Resources[nestedId]!.Properties.Parameters as Record<string, unknown>)[
        record.Ref
      ];
      return resolve(passed, root);
    }
    const getAtt = record['Fn::GetAtt'];
    if (stack === root && Array.isArray(getAtt) && String(getAtt[1]).startsWith('Outputs.')) {
      const nested = nestedById.get(String(getAtt[0]));
      if (nested) {
        const output = templates.get(nested)!.Outputs![String(getAtt[1]).slice('Outputs.'.length)]!;
        return resolve(output.Value, nested);
      }
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, resolve(item, stack)]));
  };
  const resourcesOf = (stack: Stack): Record<string, Resource> =>
    resolve(templates.get(stack)!.Resources, stack) as Record<string, Resource>;
  const resources: Record<string, Resource> = {};
  for (const stack of templates.keys()) {
    for (const [id, resource] of Object.entries(resourcesOf(stack))) {
      if (id in resources) throw new Error(`Logical id ${id} is in two stacks`);
      resources[id] = resource;
    }
  }
  return { resources, resourcesOf };
}
