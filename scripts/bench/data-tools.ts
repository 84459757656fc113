import type { BenchContext } from './context.ts';
import { buildRequest } from './load-client.ts';
import { formatMs, formatRatio, median, pairedRatio } from './measure.ts';
import type { SectionResult } from './report.ts';
import { BENCH_KEY } from './service.ts';
import { CONNECTIONS, interleavedRuns, startBaseline } from './text.ts';

/**
 * The data and crypto routes (issue 35) through the local gateway against a bare middy handler
 * doing the same work (the JSON body parser, the route's zod schema, the work function), and the
 * parsing routes' time at two input sizes eight times apart: time must grow no faster than input.
 */

const secret = 'JBSWY3DPEHPK3PXP';

/** Everyday bodies, one per route. */
const cases: { path: string; body: unknown }[] = [
  {
    path: '/data-convert',
    body: { text: 'name: Ada\nlanguages: [en, fr]\naddress: {city: London}\n', from: 'yaml', to: 'json' },
  },
  {
    path: '/markdown-to-html',
    body: { markdown: '# Notes\n\n*One* and **two**.\n\n| a | b |\n|---|---|\n| 1 | 2 |' },
  },
  {
    path: '/text-diff',
    body: { original: 'one\ntwo\nthree\nfour\n', modified: 'one\n2\nthree\nfour\nfive\n' },
  },
  {
    path: '/json-validate',
    body: {
      data: { id: 'abc', tags: ['x', 'y'], count: 3 },
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: '^[a-z]+$' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['id'],
      },
    },
  },
  {
    path: '/jwt-sign',
    body: { payload: { sub: 'user-42' }, secret: 'a shared secret of 32 bytes or more', expiresIn: 3600 },
  },
  { path: '/keypair', body: { type: 'ec' } },
  { path: '/totp', body: { secret } },
  { path: '/totp-verify', body: { secret, code: '123456' } },
  { path: '/password-strength', body: { password: 'Tr0ub4dour&3', userInputs: ['ada'] } },
];

/** A body of about `bytes` for each parsing route: records, lines, a document. */
const sized: Record<string, (bytes: number) => unknown> = {
  '/data-convert': (bytes) => ({
    text: JSON.stringify(
      Array.from({ length: Math.floor(bytes / 60) }, (_, id) => ({
        id,
        name: `name ${id}`,
        ok: id % 2 === 0,
      })),
    ),
    from: 'json',
    to: 'yaml',
  }),
  '/text-diff': (bytes) => {
    const lines = Array.from(
      { length: Math.floor(bytes / 96) },
      (_, at) => `line ${at} of the text, unchanged\n`,
    );
    const changed = lines.map((line, at) => (at % 50 === 0 ? `changed ${line}` : line));
    return { original: lines.join(''), modified: changed.join('') };
  },
  '/json-validate': (bytes) => ({
    data: Array.from({ length: Math.floor(bytes / 40) }, (_, id) => ({ id, name: `n${id}` })),
    schema: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    },
  }),
  '/markdown-to-html': (bytes) => ({
    markdown: Array.from(
      { length: Math.floor(bytes / 64) },
      (_, at) => `Paragraph ${at} with *some* text.\n\n`,
    ).join(''),
  }),
};

const SMALL = 112 * 1024;
const LARGE = 8 * SMALL;

/** The median time of `times` requests of `body`, one at a time, through the gateway. */
async function latencyMs(port: number, path: string, body: string, times: number): Promise<number> {
  const runs: number[] = [];
  for (let at = 0; at < times; at += 1) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-api-key': BENCH_KEY },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} for a sized body`);
    runs.push(performance.now() - started);
  }
  return median(runs);
}

export async function benchDataTools(context: BenchContext): Promise<SectionResult> {
  const gateway = { port: context.service.port, pid: context.service.pid };
  const middy = await startBaseline(context.rootDir, 'data-middy');
  const seconds = context.quick ? 2 : 3;
  const rows: string[][] = [];
  const ratios: Record<string, number> = {};
  let failures = 0;
  try {
    for (const { path, body } of cases) {
      const requests = {
        gateway: buildRequest(path, body, { 'x-api-key': BENCH_KEY }),
        middy: buildRequest(path, body),
      };
      const runs = await interleavedRuns({ gateway, middy }, requests, context.runs, seconds * 1000);
      failures += runs.gateway.reduce((sum, run) => sum + run.failures, 0);
      const rates = (name: 'gateway' | 'middy') => runs[name].map((run) => run.requestsPerSecond);
      ratios[path] = pairedRatio(rates('gateway'), rates('middy'));
      rows.push([
        path,
        `${Math.round(median(rates('gateway')))}`,
        `${Math.round(median(rates('middy')))}`,
        formatRatio(ratios[path]!),
      ]);
    }
  } finally {
    await middy.stop();
  }

  const growth: Record<string, number> = {};
  const sizeRows: string[][] = [];
  for (const [path, make] of Object.entries(sized)) {
    const [small, large] = [JSON.stringify(make(SMALL)), JSON.stringify(make(LARGE))];
    await latencyMs(gateway.port, path, small, 2);
    const times = context.quick ? 3 : 5;
    const smallMs = await latencyMs(gateway.port, path, small, times);
    const largeMs = await latencyMs(gateway.port, path, large, times);
    growth[path] = largeMs / smallMs;
    sizeRows.push([
      path,
      `${Math.round(small.length / 1024)} KiB`,
      formatMs(smallMs),
      `${Math.round(large.length / 1024)} KiB`,
      formatMs(largeMs),
      formatRatio(growth[path]!),
    ]);
  }

  const lowest = Object.entries(ratios).sort(([, a], [, b]) => a - b)[0]!;
  const steepest = Object.entries(growth).sort(([, a], [, b]) => b - a)[0]!;
  return {
    title: 'Data and crypto routes',
    tables: [
      {
        caption: `Requests per second, ${CONNECTIONS} keep-alive connections, median of ${context.runs} runs of ${seconds} s`,
        head: ['Route', 'Service (local gateway)', 'node:http → bare middy, same work', 'Ratio'],
        rows,
      },
      {
        caption: 'One request at a time through the gateway, at two body sizes 8× apart (median)',
        head: ['Route', 'Small body', 'Time', 'Large body', 'Time', 'Growth'],
        rows: sizeRows,
      },
    ],
    budgets: [
      {
        name: 'Data and crypto routes vs a bare middy handler',
        target: '≥ 0.60× the requests/s of node:http → bare middy, each route',
        measured: `lowest ${formatRatio(lowest[1])} (${lowest[0]})`,
        met: lowest[1] >= 0.6,
      },
      {
        name: 'Data routes linear in input size',
        target: 'a body 8× larger takes at most 8× the time',
        measured: `steepest ${formatRatio(steepest[1])} (${steepest[0]})`,
        met: steepest[1] <= 8,
      },
      {
        name: 'Data and crypto routes answer under concurrency',
        target: `no non-2xx with ${CONNECTIONS} connections`,
        measured: `${failures} answers other than 200 through the gateway`,
        met: failures === 0,
      },
    ],
    notes: [
      'The baseline is middy with the JSON body parser, the route’s zod schema and the same work function, ' +
        'nothing of ours (no request id, guards, logging or error mapping), in one process: the least a middy ' +
        'handler doing this work costs. The gateway adds API Gateway’s emulation (auth, rate limit, proxy event) ' +
        'and runs the handlers in worker processes. /keypair makes an EC P-256 pair; RSA pairs take tens of ' +
        'milliseconds of the CPU each, on both sides alike. /totp-verify checks a wrong code (the whole window).',
    ],
  };
}
