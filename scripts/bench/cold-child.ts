/**
 * One cold start, in a fresh process started by the cold-start benchmark:
 *   cold-child.ts handler <bundle index.mjs> [<request JSON>]   import a function bundle, then call it twice
 *   cold-child.ts sharp | pdfium                                load one engine alone
 *   cold-child.ts sharp-convert <image> <output>               sharp's first conversion, as image-convert's example
 * Prints one line `COLD <JSON>` with the milliseconds measured.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { installAwsLambdaGlobal } from '../../infra/local/awslambda.ts';
import { apiEvent, call } from '../../test/support/lambda.ts';

interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

const report = (fields: Record<string, unknown>) => process.stdout.write(`COLD ${JSON.stringify(fields)}\n`);
const since = (start: number) => performance.now() - start;
/** CPU time of the whole process (all threads) since `start`: steadier than wall time on a loaded machine. */
const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const [mode, bundle, requestJson] = process.argv.slice(2);
const require = createRequire(import.meta.url);

if (mode === 'sharp') {
  const startCpu = process.cpuUsage();
  const start = performance.now();
  require('sharp');
  report({ loadMs: since(start), loadCpuMs: cpuSince(startCpu) });
} else if (mode === 'sharp-convert' && bundle && requestJson) {
  // image-convert's example through the route's own encoder settings, the first conversion of a
  // process whose sharp is loaded: the floor of that function's first call.
  const [image, output] = [bundle, requestJson];
  const { default: sharp } = await import('sharp');
  const { withEncoder } = await import('#shared/image/encode.ts');
  const { routeSettings } = await import('./route-encoder.ts');
  const startCpu = process.cpuUsage();
  const start = performance.now();
  const resized = sharp(image).autoOrient().resize({ width: 800 });
  await withEncoder(resized, 'webp', routeSettings(800 * 533, 80)).toFile(output);
  report({ firstCallMs: since(start), firstCallCpuMs: cpuSince(startCpu) });
} else if (mode === 'pdfium') {
  const start = performance.now();
  const { PDFiumLibrary } = require('@hyzyla/pdfium') as typeof import('@hyzyla/pdfium');
  const importMs = since(start);
  const init = performance.now();
  await PDFiumLibrary.init();
  report({ importMs, initMs: since(init) });
} else if (mode === 'handler' && bundle) {
  installAwsLambdaGlobal();
  const startCpu = process.cpuUsage();
  const start = performance.now();
  const { handler } = (await import(pathToFileURL(bundle).href)) as { handler: unknown };
  const importMs = since(start);
  const importCpuMs = cpuSince(startCpu);
  if (!requestJson) {
    report({ importMs, importCpuMs });
  } else {
    const request = JSON.parse(requestJson) as Request;
    const event = () =>
      apiEvent(request.body, { method: request.method, path: request.path, tier: 'enterprise' });
    const firstCpu = process.cpuUsage();
    const first = performance.now();
    const answer = await call(handler, event());
    const firstCallMs = since(first);
    const firstCallCpuMs = cpuSince(firstCpu);
    const second = performance.now();
    await call(handler, event());
    report({
      importMs,
      importCpuMs,
      firstCallMs,
      firstCallCpuMs,
      secondCallMs: since(second),
      status: answer.statusCode,
    });
  }
} else {
  throw new Error(
    'usage: cold-child.ts handler <bundle> [<request JSON>] | sharp | sharp-convert <image> <output> | pdfium',
  );
}
// Handlers may leave keep-alive sockets or timers behind; the measurement is done.
process.exit(0);
