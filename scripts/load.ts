/**
 * A bounded load run against the local gateway: mixed routes (text, crypto, /checksum and the file
 * routes that exist) at a concurrency above the machine's cores, every answer checked against its
 * own request (a unique text's hash, slug or encoding; a unique source's checksum; a converted
 * file named after its unique source). Afterwards the gateway's memory must settle back near its
 * baseline and no request workspace may remain.
 *
 *   node --disable-warning=ExperimentalWarning scripts/load.ts [--seconds 30] [--concurrency 32]
 *
 * Traffic goes only to 127.0.0.1: the gateway and the source server are both started here.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { routes } from '#shared/routes.ts';
import { FixtureServer } from '../test/support/fixture-server.ts';
import { startLocalGateway } from '../test/support/gateway.ts';

export interface LoadOptions {
  /** How long requests are sent, in milliseconds. */
  durationMs: number;
  /** Requests in flight at any moment. */
  concurrency: number;
  /** Progress lines; silent by default. */
  log?: (line: string) => void;
}

export interface LoadReport {
  requests: number;
  /** Answers by status code; transport failures (reset, hang-up, timeout) under `lost`. */
  statuses: Record<string, number>;
  byRoute: Record<string, number>;
  /** Answers that do not belong to their request, or broke the contract. */
  mismatches: string[];
  lost: string[];
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  requestsPerSecond: number;
  rssMiB: { baseline: number; peak: number; after: number };
  /** Live JavaScript heap after a full garbage collection, before and after the traffic. */
  heapUsedMiB: { baseline: number; after: number };
  /** Whether the RSS came back near the baseline (see settleLimit) within the settling time. */
  memorySettled: boolean;
  leftoverWorkspaces: string[];
}

const KEY = 'load-key';
const REQUEST_TIMEOUT_MS = 60_000;
const SETTLE_MS = 30_000;

/** "Near the baseline": a little growth is the heap sizing itself and allocator caches, not a leak. */
export const settleLimit = (baselineMiB: number) => baselineMiB * 1.2 + 48;

/** What may stay on the live heap after the traffic: caches that fill once, not per request. */
const HEAP_SLACK_MIB = 16;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Scenario {
  route: string;
  weight: number;
  /** Sends one request with unique content and says what is wrong with the answer, if anything. */
  run: (n: number, send: Send) => Promise<string | undefined>;
}

type Send = (path: string, body: unknown) => Promise<Answer>;

const hasRoute = (path: string) => routes.some((route) => route.path === path && route.method === 'POST');

const jsonOf = (answer: Answer): Record<string, unknown> => {
  try {
    return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** A compact description of a wrong answer. */
const wrong = (what: string, answer: Answer) =>
  `${what}: HTTP ${answer.status} ${answer.body.toString('utf8').slice(0, 160)}`;

function textScenarios(): Scenario[] {
  const unique = (n: number) => `${n}-${randomBytes(6).toString('hex')}`;
  const algorithms = ['md5', 'sha1', 'sha256', 'sha512', 'sha3-256'] as const;
  const scenarios: Scenario[] = [
    {
      route: '/hash',
      weight: 6,
      run: async (n, send) => {
        const text = `load ${unique(n)} ✓`;
        const algorithm = algorithms[n % algorithms.length]!;
        const answer = await send('/hash', { text, algorithm });
        const expected = createHash(algorithm).update(text, 'utf8').digest('hex');
        return jsonOf(answer).hash === expected ? undefined : wrong(`/hash of "${text}"`, answer);
      },
    },
    {
      route: '/slugify',
      weight: 5,
      run: async (n, send) => {
        const id = unique(n);
        const answer = await send('/slugify', { text: `Lóad Ünïcode ${id}!` });
        return jsonOf(answer).slug === `load-unicode-${id}` ? undefined : wrong(`/slugify of ${id}`, answer);
      },
    },
    {
      route: '/encode',
      weight: 4,
      run: async (n, send) => {
        const text = `encode ${unique(n)} ü`;
        const answer = await send('/encode', { text, encoding: 'base64' });
        const expected = Buffer.from(text, 'utf8').toString('base64');
        return jsonOf(answer).result === expected ? undefined : wrong(`/encode of "${text}"`, answer);
      },
    },
    {
      route: '/hmac',
      weight: 4,
      run: async (n, send) => {
        const text = `hmac ${unique(n)}`;
        const key = `key-${n}`;
        const answer = await send('/hmac', { text, key, algorithm: 'sha256' });
        const expected = createHmac('sha256', key).update(text).digest('hex');
        return jsonOf(answer).hmac === expected ? undefined : wrong(`/hmac of "${text}"`, answer);
      },
    },
    {
      route: '/uuid',
      weight: 2,
      run: async (n, send) => {
        const count = 1 + (n % 20);
        const answer = await send('/uuid', { count, version: 4 });
        const uuids = jsonOf(answer).uuids;
        const ok =
          Array.isArray(uuids) &&
          uuids.length === count &&
          uuids.every((uuid) =>
            /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(String(uuid)),
          );
        return ok ? undefined : wrong(`/uuid count ${count}`, answer);
      },
    },
  ];
  return scenarios.filter((scenario) => hasRoute(scenario.route));
}

/** The bytes a source path stands for: unique per request, so a mixed-up answer shows. */
const sourceBytes = (n: number) => Buffer.from(`source ${n} `.repeat(40 + (n % 200)));

function downloadScenarios(sources: FixtureServer, tone: Buffer, png: Buffer | undefined): Scenario[] {
  sources.route('/blob', (request, response) => {
    const n = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('n'));
    const body = sourceBytes(n);
    response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    response.end(body);
  });
  // Every request asks for the tone under its own name; the answer's file name must carry it back.
  const toneAt = (name: string) =>
    sources.route(`/tone/${name}.wav`, (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': tone.length }).end(tone);
    });
  const fileName = (answer: Answer) =>
    /filename="([^"]+)"/.exec(String(answer.headers['content-disposition']))?.[1];
  const scenarios: Scenario[] = [
    {
      route: '/checksum',
      weight: 3,
      run: async (n, send) => {
        const answer = await send('/checksum', {
          sourceUrl: sources.url(`/blob?n=${n}`),
          algorithm: 'sha256',
        });
        const bytes = sourceBytes(n);
        const body = jsonOf(answer);
        const ok =
          body.hash === createHash('sha256').update(bytes).digest('hex') && body.sizeBytes === bytes.length;
        return ok ? undefined : wrong(`/checksum of source ${n}`, answer);
      },
    },
    {
      route: '/audio-convert',
      weight: 1,
      run: async (n, send) => {
        const answer = await send('/audio-convert', {
          sourceUrl: toneAt(`take-${n}`),
          outputFormat: 'mp3',
          bitrate: 64,
        });
        const ok =
          answer.status === 200 &&
          fileName(answer) === `take-${n}.mp3` &&
          (answer.body.subarray(0, 3).toString('latin1') === 'ID3' || answer.body[0] === 0xff) &&
          Number(answer.headers['content-length']) === answer.body.length;
        return ok ? undefined : wrong(`/audio-convert of take-${n}`, answer);
      },
    },
    {
      route: '/media-info',
      weight: 1,
      run: async (n, send) => {
        const answer = await send('/media-info', { sourceUrl: toneAt(`info-${n}`) });
        const body = jsonOf(answer);
        const ok = body.container === 'wav' && Math.abs(Number(body.durationSeconds) - 0.25) < 0.05;
        return ok ? undefined : wrong(`/media-info of info-${n}`, answer);
      },
    },
  ];
  if (png) {
    const pictureAt = (name: string) =>
      sources.route(`/picture/${name}.png`, (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png);
      });
    scenarios.push({
      route: '/image-convert',
      weight: 2,
      run: async (n, send) => {
        const answer = await send('/image-convert', {
          sourceUrl: pictureAt(`shot-${n}`),
          outputFormat: 'webp',
        });
        const ok =
          answer.status === 200 &&
          fileName(answer) === `shot-${n}.webp` &&
          answer.body.subarray(8, 12).toString('latin1') === 'WEBP';
        return ok ? undefined : wrong(`/image-convert of shot-${n}`, answer);
      },
    });
  }
  return scenarios.filter((scenario) => hasRoute(scenario.route));
}

/** The pid of our child process that listens on `port` (the gateway), found through /proc. */
export async function pidListeningOn(port: number): Promise<number> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':').at(-1);
      if (local && Number.parseInt(local, 16) === port && fields[3] === '0A') inodes.add(fields[9] ?? '');
    }
  }
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) return Number(entry);
    }
  }
  throw new Error(`no child process listens on port ${port}`);
}

/** Resident memory of a process, in MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** A free loopback port, for the gateway's inspector. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The gateway's V8 inspector (loopback only): a full garbage collection before each measurement
 * tells retained memory from heap the collector simply has not reclaimed yet.
 */
class Inspector {
  #socket: WebSocket;
  #next = 0;
  readonly #pending = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message.result ?? {});
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
      webSocketDebuggerUrl: string;
    }>;
    const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }

  call(method: string): Promise<Record<string, unknown>> {
    this.#next += 1;
    const id = this.#next;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#socket.send(JSON.stringify({ id, method }));
    });
  }

  /** Live heap in MiB after two full collections. */
  async heapAfterGc(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call('Runtime.getHeapUsage');
    return Number(usage.usedSize) / 1024 / 1024;
  }

  close(): void {
    this.#socket.close();
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

/** A tiny 16-bit mono WAV of 0.25 s, made here so the script needs no ffmpeg of its own. */
function toneWav(): Buffer {
  const rate = 8000;
  const samples = rate / 4;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

async function smallPng(): Promise<Buffer | undefined> {
  if (!hasRoute('/image-convert')) return undefined;
  const { default: sharp } = await import('sharp');
  return sharp({ create: { width: 24, height: 16, channels: 3, background: '#2266aa' } })
    .png()
    .toBuffer();
}

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => {});
  const tmp = await mkdtemp(join(tmpdir(), 'load-'));
  const sources = await new FixtureServer().start();
  const inspectorPort = await freePort();
  const gateway = await startLocalGateway({
    API_KEYS: `${KEY}:enterprise:100000000`,
    SOURCE_ALLOW_PRIVATE: 'true',
    TMPDIR: tmp,
    NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}`,
  });
  let inspector: Inspector | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const base = new URL(gateway.url);
  try {
    const pid = await pidListeningOn(Number(base.port));
    inspector = await Inspector.connect(inspectorPort);
    const send: Send = (path, body) =>
      new Promise((resolve, reject) => {
        const payload = Buffer.from(JSON.stringify(body));
        const request = httpRequest(
          {
            host: base.hostname,
            port: base.port,
            path,
            method: 'POST',
            agent,
            timeout: REQUEST_TIMEOUT_MS,
            headers: {
              'content-type': 'application/json',
              'content-length': payload.length,
              'x-api-key': KEY,
            },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                body: Buffer.concat(chunks),
              }),
            );
            response.on('error', reject);
          },
        );
        request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
        request.on('error', reject);
        request.end(payload);
      });

    const scenarios = [...textScenarios(), ...downloadScenarios(sources, toneWav(), await smallPng())];
    const totalWeight = scenarios.reduce((sum, scenario) => sum + scenario.weight, 0);
    const pick = (n: number) => {
      let at = (n * 7919) % totalWeight;
      for (const scenario of scenarios) {
        if (at < scenario.weight) return scenario;
        at -= scenario.weight;
      }
      return scenarios[0]!;
    };

    // Warm-up: load every handler once, so the baseline includes the modules, not the traffic.
    for (const [index, scenario] of scenarios.entries()) {
      const problem = await scenario.run(1_000_000 + index, send);
      if (problem) throw new Error(`warm-up failed: ${problem}`);
    }
    await sleep(500);
    const heapBaseline = await inspector.heapAfterGc();
    const baseline = await rssMiB(pid);
    log(
      `gateway pid ${pid}, baseline RSS ${baseline.toFixed(1)} MiB, routes ${scenarios.map((s) => s.route).join(' ')}`,
    );

    const report: LoadReport = {
      requests: 0,
      statuses: {},
      byRoute: {},
      mismatches: [],
      lost: [],
      latencyMs: { p50: 0, p95: 0, p99: 0, max: 0 },
      requestsPerSecond: 0,
      rssMiB: { baseline, peak: baseline, after: baseline },
      heapUsedMiB: { baseline: heapBaseline, after: heapBaseline },
      memorySettled: false,
      leftoverWorkspaces: [],
    };
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    const stopAt = started + options.durationMs;
    let samples = 0;
    const sampler = setInterval(() => {
      samples += 1;
      rssMiB(pid).then(
        (rss) => {
          report.rssMiB.peak = Math.max(report.rssMiB.peak, rss);
          if (samples % 25 === 0) log(`  ${report.requests} requests, RSS ${rss.toFixed(1)} MiB`);
        },
        () => {},
      );
    }, 200);

    const statusOf = (answerStatus: number) => {
      report.statuses[answerStatus] = (report.statuses[answerStatus] ?? 0) + 1;
    };
    const worker = async () => {
      while (performance.now() < stopAt) {
        next += 1;
        const n = next;
        const scenario = pick(n);
        const sent = performance.now();
        let status = 0;
        const observed: Send = async (path, body) => {
          const answer = await send(path, body);
          status = answer.status;
          return answer;
        };
        try {
          const problem = await scenario.run(n, observed);
          statusOf(status);
          if (problem) report.mismatches.push(problem);
        } catch (error) {
          statusOf(0);
          report.lost.push(`${scenario.route} #${n}: ${(error as Error).message}`);
        }
        latencies.push(performance.now() - sent);
        report.requests += 1;
        report.byRoute[scenario.route] = (report.byRoute[scenario.route] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    clearInterval(sampler);
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    report.latencyMs = {
      p50: Math.round(percentile(latencies, 0.5)),
      p95: Math.round(percentile(latencies, 0.95)),
      p99: Math.round(percentile(latencies, 0.99)),
      max: Math.round(latencies.at(-1) ?? 0),
    };
    report.requestsPerSecond = Math.round(report.requests / elapsed);
    log(
      `${report.requests} requests in ${elapsed.toFixed(1)} s (${report.requestsPerSecond}/s), ` +
        `latency p50 ${report.latencyMs.p50} ms p95 ${report.latencyMs.p95} ms p99 ${report.latencyMs.p99} ms`,
    );

    // Idle connections closed; then wait for the heap to shrink back, as an idle container would.
    agent.destroy();
    const settleBy = performance.now() + SETTLE_MS;
    await sleep(1500);
    report.heapUsedMiB.after = await inspector.heapAfterGc();
    do {
      await sleep(500);
      report.rssMiB.after = await rssMiB(pid);
    } while (report.rssMiB.after > settleLimit(baseline) && performance.now() < settleBy);
    report.memorySettled = report.rssMiB.after <= settleLimit(baseline);
    report.leftoverWorkspaces = (await readdir(tmp)).filter((name) => /^fca-[A-Za-z0-9]{6}$/.test(name));
    log(
      `RSS baseline ${baseline.toFixed(1)} MiB, peak ${report.rssMiB.peak.toFixed(1)} MiB, ` +
        `after ${report.rssMiB.after.toFixed(1)} MiB (limit ${settleLimit(baseline).toFixed(1)}); live heap ` +
        `${heapBaseline.toFixed(1)} → ${report.heapUsedMiB.after.toFixed(1)} MiB`,
    );
    return report;
  } finally {
    inspector?.close();
    agent.destroy();
    await gateway.stop();
    await sources.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Everything that makes a run fail, in words. */
export function problemsOf(report: LoadReport): string[] {
  const problems: string[] = [];
  const serverErrors = Object.entries(report.statuses).filter(([status]) => Number(status) >= 500);
  if (serverErrors.length) problems.push(`5xx answers: ${JSON.stringify(Object.fromEntries(serverErrors))}`);
  if (report.lost.length) problems.push(`${report.lost.length} lost: ${report.lost.slice(0, 5).join('; ')}`);
  if (report.mismatches.length) {
    problems.push(`${report.mismatches.length} wrong answers: ${report.mismatches.slice(0, 5).join('; ')}`);
  }
  if (!report.memorySettled) {
    problems.push(
      `RSS stayed at ${report.rssMiB.after.toFixed(1)} MiB after the run (baseline ${report.rssMiB.baseline.toFixed(1)} MiB)`,
    );
  }
  if (report.heapUsedMiB.after > report.heapUsedMiB.baseline + HEAP_SLACK_MIB) {
    problems.push(
      `live heap grew from ${report.heapUsedMiB.baseline.toFixed(1)} to ${report.heapUsedMiB.after.toFixed(1)} MiB`,
    );
  }
  if (report.leftoverWorkspaces.length)
    problems.push(`workspaces left: ${report.leftoverWorkspaces.join(', ')}`);
  return problems;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '30' },
      concurrency: { type: 'string', default: String(Math.max(16, availableParallelism() * 8)) },
    },
  });
  const report = await runLoad({
    durationMs: Number(values.seconds) * 1000,
    concurrency: Number(values.concurrency),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    `${JSON.stringify({ ...report, mismatches: report.mismatches.length, lost: report.lost.length }, null, 2)}\n`,
  );
  const problems = problemsOf(report);
  for (const problem of problems) process.stderr.write(`FAIL ${problem}\n`);
  process.exitCode = problems.length ? 1 : 0;
}
