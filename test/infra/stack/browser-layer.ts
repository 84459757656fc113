import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { browserEnvironment } from '../../../infra/stack/browser-layer.ts';
import { logicalIdOf, type Resource, type Synthesized, sharedSynthesis } from '../synth.ts';

/** The four browser routes: Chromium and its fonts in layers, 2048 MiB, 120 s. */
const browserFunctions = ['html-to-pdf', 'url-to-pdf', 'markdown-to-pdf', 'web-screenshot'];

let synth: Synthesized;
let resources: Record<string, Resource>;
let nested: Resource[];

beforeAll(async () => {
  synth = await sharedSynthesis();
  resources = synth.resources;
  nested = Object.values(synth.resourcesOf(synth.stack.monitoring));
}, 240_000);

const functionId = (name: string) => logicalIdOf(synth.stack.functions.get(name)!);
const layerId = (prefix: string) =>
  Object.entries(resources).find(
    ([id, r]) => r.Type === 'AWS::Lambda::LayerVersion' && id.startsWith(prefix),
  )![0];
const layerRefs = (fn: Resource) =>
  ((fn.Properties.Layers as { Ref: string }[] | undefined) ?? []).map((l) => l.Ref);

describe('the browser layers', () => {
  it('ship the packed Chromium and the fonts with a fontconfig file for /opt/fonts', () => {
    const chromium = synth.layers.chromium.dir;
    expect(existsSync(join(chromium, 'chromium', 'chromium.br'))).toBe(true);
    const fonts = join(synth.layers.fonts.dir, 'fonts');
    const conf = readFileSync(join(fonts, 'fonts.conf'), 'utf8');
    expect(conf).toContain('<dir>/opt/fonts</dir>');
    for (const file of [
      'LiberationSans-Regular.ttf',
      'LiberationSerif-Regular.ttf',
      'NotoSans-Regular.ttf',
      'NotoSansCJK-Regular.ttc',
    ])
      expect(existsSync(join(fonts, file)), file).toBe(true);
    for (const prefix of ['ChromiumLayer', 'FontsLayer']) {
      expect(resources[layerId(prefix)]!.Properties).toMatchObject({
        CompatibleArchitectures: ['x86_64'],
        CompatibleRuntimes: ['nodejs24.x'],
      });
    }
  });

  it('go to the browser functions, which name them in their environment, and to no other', () => {
    const browserLayers = [layerId('ChromiumLayer'), layerId('FontsLayer')].sort();
    for (const route of routes) {
      const fn = resources[functionId(route.function)]!;
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (browserFunctions.includes(route.function)) {
        expect(layerRefs(fn).sort(), route.path).toEqual(browserLayers);
        expect(env).toMatchObject(browserEnvironment);
        expect(fn.Properties).toMatchObject({ MemorySize: 2048, Timeout: 120 });
        // The browser comes from the layer: the function's own code stays small.
        expect(synth.bundles.get(route.function)!.sizeBytes).toBeLessThan(20 * 1024 * 1024);
      } else {
        expect(layerRefs(fn), route.path).not.toContain(layerId('ChromiumLayer'));
        expect(env.CHROMIUM_PACK_DIR, route.path).toBeUndefined();
      }
    }
  });

  it('leave each browser function inside Lambda’s unzipped limit', () => {
    for (const name of browserFunctions) {
      const total =
        synth.bundles.get(name)!.sizeBytes + synth.layers.chromium.sizeBytes + synth.layers.fonts.sizeBytes;
      expect(total, name).toBeLessThan(250 * 1024 * 1024);
    }
  });

  it('are watched: 5xx rate, throttles, p99 duration against the 120 s timeout, dropped async runs', () => {
    const alarmNames = nested
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => [String(r.Properties.AlarmName), r.Properties] as const);
    for (const name of browserFunctions) {
      const named = (suffix: string) =>
        alarmNames.find(([alarm]) => alarm.endsWith(`-${name}-${suffix}`))?.[1];
      expect(named('5xx-rate'), name).toBeDefined();
      expect(named('throttles'), name).toBeDefined();
      expect(named('duration-p99'), name).toMatchObject({ Threshold: 120 * 1000 * 0.8 });
    }
    const dropped = nested.filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties.MetricName === 'AsyncEventsDropped',
    );
    expect(dropped.length).toBeGreaterThanOrEqual(browserFunctions.length);
  });
});
