import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { OfficeFunction, officeFunctionName } from '../../../infra/stack/office-function.ts';
import type { FileConversionStack } from '../../../infra/stack/stack.ts';
import { logicalIdOf, type Resource, type Synthesized, sharedSynthesis } from '../synth.ts';

/**
 * /office-to-pdf's container-image function in the synthesized stack: the image, its sizing, its
 * alarms, its rights, cdk-nag.
 */

const officeRoute = routes.find((route) => route.function === officeFunctionName)!;
let synth: Synthesized;
let app: App;
let stack: FileConversionStack;
let resources: Record<string, Resource>;
let nested: Record<string, Resource>;

beforeAll(async () => {
  synth = await sharedSynthesis();
  ({ app, stack } = synth);
  resources = synth.resources;
  nested = synth.resourcesOf(stack.monitoring);
}, 300_000);

const officeFunction = () => {
  const fn = stack.functions.get(officeFunctionName);
  if (!(fn instanceof OfficeFunction)) throw new Error('office-to-pdf is not an OfficeFunction');
  return { fn, resource: resources[logicalIdOf(fn)]! };
};

describe('the office-to-pdf function', () => {
  it('is in the route table, under Documents', () => {
    expect(officeRoute).toMatchObject({ path: '/office-to-pdf', kind: 'file', tag: 'Documents' });
  });

  it('is a container image built from layers/office/Dockerfile, for x86_64, traced', () => {
    const { fn, resource } = officeFunction();
    expect(resource.Properties).toMatchObject({
      PackageType: 'Image',
      Architectures: ['x86_64'],
      TracingConfig: { Mode: 'Active' },
      Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
    });
    expect(resource.Properties.Runtime).toBeUndefined();
    expect(resource.Properties.Layers).toBeUndefined();
    // The image's build context was staged: the recipe and the function's bundle, nothing else.
    const assets = JSON.parse(
      readFileSync(join(app.synth().directory, `${stack.artifactId}.assets.json`), 'utf8'),
    ) as { dockerImages: Record<string, { source: { directory: string; platform?: string } }> };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1);
    const context = join(app.synth().directory, images[0]!.source.directory);
    expect(images[0]!.source.platform).toBe('linux/amd64');
    expect(readFileSync(join(context, 'Dockerfile'), 'utf8')).toContain('FROM debian:12-slim');
    expect(readFileSync(join(context, 'Dockerfile'), 'utf8')).toContain('libreoffice-writer-nogui');
    expect(existsSync(join(context, 'bundle', 'index.mjs'))).toBe(true);
    expect(fn.bundle.name).toBe(officeFunctionName);
  });

  it('is sized as the Documents routes are: memory, timeout and /tmp from the sizing table', () => {
    const { resource } = officeFunction();
    const { sizing } = officeRoute;
    expect(sizing).toMatchObject({ memoryMiB: 2048, timeoutSeconds: 120 });
    expect(resource.Properties).toMatchObject({
      MemorySize: sizing.memoryMiB,
      Timeout: sizing.timeoutSeconds,
      EphemeralStorage: { Size: sizing.ephemeralMiB },
    });
  });

  it('runs async jobs as every file function does: job storage and the webhook secret in its environment', () => {
    const { resource } = officeFunction();
    const variables = (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(variables)).toEqual(expect.arrayContaining(['JOBS_BUCKET', 'WEBHOOK_SECRET_ARN']));
    const { fn } = officeFunction();
    const logicalId = logicalIdOf(fn);
    const eventConfigs = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventInvokeConfig' &&
        JSON.stringify(resource.Properties.FunctionName).includes(`"${logicalId}"`),
    );
    expect(eventConfigs).toHaveLength(1);
  });

  it('has the alarms of a file function: 5xx rate, throttles, duration near the timeout, async drops', () => {
    const names = Object.values(nested)
      .filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm')
      .map((resource) => String(resource.Properties.AlarmName));
    for (const alarm of ['5xx-rate', 'throttles', 'duration-p99', 'async-dropped']) {
      expect(names).toContain(`${stack.stackName}-office-to-pdf-${alarm}`);
    }
  });
});
