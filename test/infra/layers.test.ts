import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFfmpegLayer } from '../../layers/ffmpeg/build.ts';
import { type BuiltLayer, lambdaUnzippedLimitBytes } from '../../layers/layer.ts';
import { buildSharpLayer } from '../../layers/sharp/build.ts';

const run = promisify(execFile);

/** Runs node the way Lambda's runtime does for a layer: NODE_PATH lists /opt/nodejs/node_modules. */
async function nodeWithLayer(layer: BuiltLayer, script: string, cwd: string) {
  const { stdout } = await run(process.execPath, ['-e', script], {
    cwd,
    env: { PATH: '/usr/bin:/bin', NODE_PATH: join(layer.dir, 'nodejs', 'node_modules') },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

let outRoot: string;
let sharp: BuiltLayer;
let ffmpeg: BuiltLayer;

beforeAll(() => {
  // Outside the project, so that nothing can be found in its node_modules by accident.
  outRoot = mkdtempSync(join(tmpdir(), 'layers-'));
  sharp = buildSharpLayer(outRoot);
  ffmpeg = buildFfmpegLayer(outRoot);
});

afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

describe('ffmpeg layer', () => {
  it.each(['ffmpeg', 'ffprobe'])('runs bin/%s -version, executable by any user', async (binary) => {
    const path = join(ffmpeg.dir, 'bin', binary);
    expect(statSync(path).mode & 0o777).toBe(0o755);
    const { stdout } = await run(path, ['-version'], { cwd: outRoot, env: {} });
    expect(stdout).toMatch(new RegExp(`^${binary} version `));
  });
});

describe('sharp layer', () => {
  it('loads sharp and libvips from nodejs/node_modules and converts an image', async () => {
    const script = `
      const sharp = require('sharp');
      const libvips = require('node:fs').readFileSync('/proc/self/maps', 'utf8').split('\\n')
        .map((line) => line.split(/\\s+/).pop()).find((path) => /libvips-cpp/.test(path ?? ''));
      sharp({ create: { width: 8, height: 6, channels: 3, background: '#ff0000' } }).webp().toBuffer()
        .then((webp) => sharp(webp).metadata())
        .then((meta) => console.log(JSON.stringify({
          resolved: require.resolve('sharp'), libvips, vips: sharp.versions.vips, node: process.version,
          format: meta.format, width: meta.width, height: meta.height,
        })));
    `;
    const answer = await nodeWithLayer(sharp, script, outRoot);
    expect(answer).toMatchObject({ format: 'webp', width: 8, height: 6 });
    expect(answer.node).toMatch(/^v24\./);
    expect(answer.resolved).toContain(join(sharp.dir, 'nodejs', 'node_modules', 'sharp'));
    expect(answer.libvips).toContain(
      join(sharp.dir, 'nodejs', 'node_modules', '@img', 'sharp-libvips-linux-x64'),
    );
  });

  it('holds sharp, its dependencies and the linux-x64 binaries only', () => {
    const modules = join(sharp.dir, 'nodejs', 'node_modules');
    for (const name of [
      'sharp',
      '@img/sharp-linux-x64',
      '@img/sharp-libvips-linux-x64',
      'detect-libc',
      'semver',
    ]) {
      expect(statSync(join(modules, name, 'package.json')).isFile(), name).toBe(true);
    }
    expect(() => statSync(join(modules, '@img', 'sharp-linuxmusl-x64'))).toThrow();
    expect(() => statSync(join(modules, '@img', 'sharp-darwin-arm64'))).toThrow();
  });
});

describe('layer sizes and rebuilds', () => {
  it('fits both layers and a function into Lambda’s 250 MB unzipped', () => {
    console.info(`sharp layer ${sharp.sizeBytes} bytes, ffmpeg layer ${ffmpeg.sizeBytes} bytes`);
    expect(sharp.sizeBytes).toBeGreaterThan(5 * 1024 * 1024);
    // Static ffmpeg and ffprobe with only the formats and codecs the routes use: about 30 MiB.
    expect(ffmpeg.sizeBytes).toBeGreaterThan(20 * 1024 * 1024);
    // Room left for a function's own code next to both layers.
    expect(sharp.sizeBytes + ffmpeg.sizeBytes).toBeLessThan(lambdaUnzippedLimitBytes - 30 * 1024 * 1024);
  });

  it('rebuilds only when an input changed', () => {
    expect(sharp.rebuilt).toBe(true);
    const again = buildSharpLayer(outRoot);
    expect(again.rebuilt).toBe(false);
    expect(again.sizeBytes).toBe(sharp.sizeBytes);
  });
});
