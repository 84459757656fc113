import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, rgb } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFolder, bundleFunctions, type FunctionBundles } from '../../infra/stack/bundle.ts';
import { buildFfmpegLayer } from '../../layers/ffmpeg/build.ts';
import { type BuiltLayer, projectRoot } from '../../layers/layer.ts';
import { buildSharpLayer } from '../../layers/sharp/build.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { importGraph, loadedAtInit } from '../support/import-graph.ts';
import { apiEvent } from '../support/lambda.ts';

const run = promisify(execFile);

/** Probe functions that import what real handlers import: sharp, an N-API addon, the ffmpeg paths. */
const probes: Record<string, string> = {
  'image-probe': `
    import sharp from 'sharp';
    export const handler = async () => {
      const png = await sharp({ create: { width: 4, height: 3, channels: 4, background: '#00ff0080' } }).png().toBuffer();
      const meta = await sharp(png).metadata();
      return { format: meta.format, width: meta.width, hasAlpha: meta.hasAlpha, from: require.resolve('sharp') };
    };`,
  'password-probe': `
    import { hash, verify } from '@node-rs/argon2';
    export const handler = async () => {
      const encoded = await hash('correct horse');
      return { encoded: encoded.slice(0, 10), valid: await verify(encoded, 'correct horse') };
    };`,
  'media-probe': `
    import { execFileSync } from 'node:child_process';
    import { ffmpegPath } from '#shared/media/binaries.ts';
    export const handler = async () => ({ ffmpegPath, version: execFileSync(ffmpegPath, ['-version']).toString().split('\\n')[0] });`,
  'nested/probe': `export const handler = async () => ({ nested: true });`,
  // The real handler: HEIC decoding (libheif-js) reads __dirname, which an ES module lacks.
  'image-convert': `export { handler } from '#functions/image-convert/handler.ts';`,
  // The real handler: pdfium is a package of the function's own, loaded by import() on first use.
  'pdf-to-image': `export { handler } from '#functions/pdf-to-image/handler.ts';`,
  // A text function: only the parts of zod its schemas use.
  slugify: `export { handler } from '#functions/slugify/handler.ts';`,
};

/** Serves `source`, sends it through a bundled file handler, and reads the PNG it answers. */
async function pngThroughBundle(name: string, path: string, source: Buffer, body: Record<string, unknown>) {
  const server = await new FixtureServer().start();
  try {
    const sourceUrl = server.serve(path, source);
    const answer = await invokeApi(name, apiEvent({ sourceUrl, ...body }), { SOURCE_ALLOW_PRIVATE: 'true' });
    expect(answer.statusCode, answer.body.toString('utf8')).toBe(200);
    expect(answer.headers['Content-Type']).toBe('image/png');
    const { data, info } = await sharp(answer.body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => {
      const at = (y * info.width + x) * 3;
      return [...data.subarray(at, at + 3)];
    };
    return { width: info.width, height: info.height, pixel };
  } finally {
    await server.stop();
  }
}

let probeRoot: string;
let outDir: string;
let layersDir: string;
let bundles: FunctionBundles;
let layers: { sharp: BuiltLayer; ffmpeg: BuiltLayer };

/** Loads a bundle as Lambda's runtime would: an ES module, layers on NODE_PATH, from outside the project. */
async function invoke(name: string, env: Record<string, string> = {}) {
  const entry = join(outDir, bundleFolder(name), 'index.mjs');
  const script = `import(${JSON.stringify(entry)}).then((m) => m.handler()).then((r) => console.log(JSON.stringify(r)))`;
  const { stdout } = await run(process.execPath, ['--enable-source-maps', '-e', script], {
    cwd: outDir,
    env: { PATH: '/usr/bin:/bin', NODE_PATH: join(layers.sharp.dir, 'nodejs', 'node_modules'), ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/**
 * Invokes a bundled API handler with an event, as Lambda's runtime would (the `awslambda` global,
 * response streaming), and collects its answer. Only the harness comes from the project.
 */
async function invokeApi(name: string, event: unknown, env: Record<string, string> = {}) {
  const entry = join(outDir, bundleFolder(name), 'index.mjs');
  const local = (file: string) => JSON.stringify(join(projectRoot, 'infra', 'local', file));
  const script = `
    import { installAwsLambdaGlobal } from ${local('awslambda.ts')};
    import { invokeHandler } from ${local('invoke.ts')};
    installAwsLambdaGlobal();
    const { handler } = await import(${JSON.stringify(entry)});
    const context = { awsRequestId: 'bundle', functionName: ${JSON.stringify(name)}, getRemainingTimeInMillis: () => 60000 };
    const result = await invokeHandler(handler, JSON.parse(process.argv[1]), context);
    const chunks = [];
    if (Buffer.isBuffer(result.body)) chunks.push(result.body);
    else for await (const chunk of result.body) chunks.push(chunk);
    await result.done;
    console.log(JSON.stringify({ statusCode: result.statusCode, headers: result.headers, body: Buffer.concat(chunks).toString('base64') }));`;
  const { stdout } = await run(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script, JSON.stringify(event)],
    {
      cwd: outDir,
      env: {
        PATH: '/usr/bin:/bin',
        NODE_PATH: join(layers.sharp.dir, 'nodejs', 'node_modules'),
        LOG_LEVEL: 'silent',
        ...env,
      },
    },
  );
  const answer = JSON.parse(stdout) as { statusCode: number; headers: Record<string, string>; body: string };
  return { ...answer, body: Buffer.from(answer.body, 'base64') };
}

beforeAll(async () => {
  // Probe sources sit in the project (git-ignored .tmp/), so #shared imports and node_modules
  // resolve as for real handlers; bundles go outside it, as they are in Lambda.
  probeRoot = join(projectRoot, '.tmp', `bundle-probe-${process.pid}`);
  for (const [name, source] of Object.entries(probes)) {
    mkdirSync(join(probeRoot, 'functions', name), { recursive: true });
    writeFileSync(join(probeRoot, 'functions', name, 'handler.ts'), source);
  }
  outDir = mkdtempSync(join(tmpdir(), 'bundles-'));
  layersDir = mkdtempSync(join(tmpdir(), 'bundle-layers-'));
  layers = { sharp: buildSharpLayer(layersDir), ffmpeg: buildFfmpegLayer(layersDir) };
  bundles = await bundleFunctions({ rootDir: probeRoot, outDir, names: Object.keys(probes) });
});

afterAll(() => {
  rmSync(probeRoot, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
  rmSync(layersDir, { recursive: true, force: true });
});

describe('function bundles', () => {
  it('bundles every function into a folder of its own, nested names included', () => {
    expect([...bundles.keys()].sort()).toEqual(Object.keys(probes).sort());
    for (const bundle of bundles.values()) {
      expect(existsSync(join(bundle.dir, 'index.mjs')), bundle.name).toBe(true);
      expect(existsSync(join(bundle.dir, 'index.mjs.map')), bundle.name).toBe(true);
    }
    expect(bundles.get('nested/probe')!.dir).toBe(join(outDir, 'nested--probe'));
  });

  it('leaves sharp to its layer: required at run time, not bundled, not copied', async () => {
    const bundle = bundles.get('image-probe')!;
    expect(bundle.layers).toEqual(['sharp']);
    const code = readFileSync(join(bundle.dir, 'index.mjs'), 'utf8');
    // A run-time require (minified to a short name), never an ES import that NODE_PATH cannot serve.
    expect(code).toMatch(/\("sharp"\)/);
    expect(code).not.toMatch(/from\s*"sharp"/);
    expect(code).not.toContain('sharp-libvips');
    expect(existsSync(join(bundle.dir, 'node_modules'))).toBe(false);
    const answer = await invoke('image-probe');
    expect(answer).toMatchObject({ format: 'png', width: 4, hasAlpha: true });
    expect(answer.from).toContain(layers.sharp.dir);
  });

  it('ships an N-API addon with the function that imports it, for linux-x64 glibc', async () => {
    const bundle = bundles.get('password-probe')!;
    expect(bundle.layers).toEqual([]);
    expect(existsSync(join(bundle.dir, 'node_modules', '@node-rs', 'argon2', 'package.json'))).toBe(true);
    expect(existsSync(join(bundle.dir, 'node_modules', '@node-rs', 'argon2-linux-x64-gnu'))).toBe(true);
    expect(await invoke('password-probe')).toEqual({ encoded: '$argon2id$', valid: true });
  });

  it('gives the ffmpeg layer to a function that runs ffmpeg, found through FFMPEG_PATH', async () => {
    const bundle = bundles.get('media-probe')!;
    expect(bundle.layers).toEqual(['ffmpeg']);
    const ffmpegPath = join(layers.ffmpeg.dir, 'bin', 'ffmpeg');
    const answer = await invoke('media-probe', {
      FFMPEG_PATH: ffmpegPath,
      FFPROBE_PATH: join(layers.ffmpeg.dir, 'bin', 'ffprobe'),
    });
    expect(answer).toEqual({ ffmpegPath, version: expect.stringMatching(/^ffmpeg version /) });
  });

  it('decodes HEIC inside the bundled image-convert handler (libheif-js reads __dirname and __filename)', async () => {
    const heic = readFileSync(join(projectRoot, 'test', 'fixtures', 'files', 'image', 'quad.heic'));
    const { width, height, pixel } = await pngThroughBundle('image-convert', '/pictures/quad.heic', heic, {
      outputFormat: 'png',
    });
    expect([width, height]).toEqual([64, 48]);
    // Top left red, bottom right white, within HEVC's tolerance.
    const [red, green, blue] = pixel(8, 6);
    expect([red! > 231, green! < 24, blue! < 24]).toEqual([true, true, true]);
    expect(Math.min(...pixel(56, 42))).toBeGreaterThan(231);
    // The banner makes them, as CommonJS would, for the bundle's own file.
    const code = readFileSync(join(bundles.get('image-convert')!.dir, 'index.mjs'), 'utf8');
    expect(code.slice(0, code.indexOf('\n'))).toMatch(/const __filename\s*=.*const __dirname\s*=/);
  });

  it('leaves what a handler loads on demand out of its cold start: libheif-js is a chunk that only import() reaches', async () => {
    const dir = bundles.get('image-convert')!.dir;
    // The bundle's own files that Node evaluates at import: index.mjs and the chunks it imports statically.
    const atInit = [...loadedAtInit(await importGraph(['index.mjs'], dir), 'index.mjs')].filter((file) =>
      file.endsWith('.mjs'),
    );
    expect(atInit, 'index.mjs and the chunks it imports').toEqual(
      expect.arrayContaining(['index.mjs', expect.stringMatching(/^chunks\//)]),
    );
    const initBytes = atInit.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    // libheif-js alone is about 2 MB; everything image-convert evaluates at init is well under 1 MB.
    expect(initBytes).toBeLessThan(1024 * 1024);
    const chunks = readdirSync(join(dir, 'chunks')).filter((file) => file.endsWith('.mjs'));
    const libheif = chunks.find((file) => file.startsWith('libheif-bundle-'));
    expect(libheif).toBeDefined();
    expect(atInit).not.toContain(`chunks/${libheif}`);
  });

  it('renders a page inside the bundled pdf-to-image handler (pdfium, loaded on first use from the function folder)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([144, 72]).drawRectangle({ x: 0, y: 0, width: 72, height: 72, color: rgb(1, 0, 0) });
    const pdf = Buffer.from(await doc.save());
    const { width, height, pixel } = await pngThroughBundle('pdf-to-image', '/reports/one.pdf', pdf, {
      dpi: 72,
    });
    expect([width, height]).toEqual([144, 72]);
    // Red on the left half, white on the right.
    expect(pixel(36, 36)).toEqual([255, 0, 0]);
    expect(pixel(108, 36)).toEqual([255, 255, 255]);
    const dir = bundles.get('pdf-to-image')!.dir;
    expect(existsSync(join(dir, 'node_modules', '@hyzyla', 'pdfium', 'package.json'))).toBe(true);
    expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).toContain('import("@hyzyla/pdfium")');
  });

  it('keeps a text function small and quick to load: only the zod it uses, node:http required', async () => {
    const code = readFileSync(join(bundles.get('slugify')!.dir, 'index.mjs'), 'utf8');
    // zod imported as a module namespace (`import * as z`) lets esbuild drop the schemas, checks and
    // languages no route uses. One `import { z }` anywhere reaches all of zod through its `z`
    // object: slugify would be about 520 KB, every language included.
    expect(Buffer.byteLength(code)).toBeLessThan(200 * 1024);
    // node:http is required, not imported: its ES module facade would load undici at init.
    expect(code).not.toMatch(/from\s*"node:http"/);
    const answer = await invokeApi('slugify', apiEvent({ text: 42 }));
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({
      error: 'validation_failed',
      message: expect.stringMatching(/^text: Invalid input: expected string, received number/),
    });
  });

  it('gives no layer to a function that needs none', () => {
    expect(bundles.get('nested/probe')!.layers).toEqual([]);
  });
});
