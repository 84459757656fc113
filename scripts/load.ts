/**
 * A bounded load run against the local gateway: mixed routes (text, crypto, /checksum and the file
 * routes that exist) at a concurrency above the machine's cores, every answer checked against its
 * own request (a unique text's hash, slug or encoding; a unique source's checksum; a converted
 * file named after its unique source). The traffic comes in two rounds of as many requests; once
 * the gateway is idle after each, its memory is read after a full garbage collection: the first
 * round must hand back most of what it took, the second must add nothing to what the first kept
 * (scripts/load/report.ts says how much is allowed, and why). No request workspace may remain.
 *
 *   node --disable-warning=ExperimentalWarning scripts/load.ts [--seconds 30] [--concurrency 32]
 *
 * Traffic goes only to 127.0.0.1: the gateway and the source server are both started here.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { FixtureServer } from '../test/support/fixture-server.ts';
import { startLocalGateway } from '../test/support/gateway.ts';
import { createSender } from './load/client.ts';
import { downloadScenarios, smallPng, toneWav } from './load/download-scenarios.ts';
import { freePort, Inspector, pidListeningOn, rssMiB } from './load/memory.ts';
import { type LoadReport, type MemoryReading, percentile, problemsOf } from './load/report.ts';
import type { Send } from './load/scenario.ts';
import { textScenarios } from './load/text-scenarios.ts';

export interface LoadOptions {
  /** How long requests are sent, in milliseconds. */
  durationMs: number;
  /** Requests in flight at any moment. */
  concurrency: number;
  /** Progress lines; silent by default. */
  log?: (line: string) => void;
}

const KEY = 'load-key';
const REQUEST_TIMEOUT_MS = 60_000;
/** A pause for the allocator and V8 to hand back freed pages before memory is read. */
const SETTLE_MS = 1000;

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
    const probe = await Inspector.connect(inspectorPort);
    inspector = probe;
    const send = createSender(base, agent, KEY, REQUEST_TIMEOUT_MS);

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
    /** Memory once the gateway is idle: connections closed, a full collection, a pause. */
    const settled = async (): Promise<MemoryReading> => {
      agent.destroy();
      await sleep(SETTLE_MS);
      const heapMiB = await probe.heapAfterGc();
      await sleep(SETTLE_MS);
      return { heapMiB, rssMiB: await rssMiB(pid) };
    };
    const baseline = await settled();
    log(
      `gateway pid ${pid}, baseline RSS ${baseline.rssMiB.toFixed(1)} MiB, live heap ${baseline.heapMiB.toFixed(1)} MiB, ` +
        `routes ${scenarios.map((s) => s.route).join(' ')}`,
    );

    const report: LoadReport = {
      requests: 0,
      statuses: {},
      byRoute: {},
      mismatches: [],
      lost: [],
      latencyMs: { p50: 0, p95: 0, p99: 0, max: 0 },
      requestsPerSecond: 0,
      memory: {
        baseline,
        afterFirstRound: baseline,
        afterSecondRound: baseline,
        firstRoundPeakRssMiB: baseline.rssMiB,
      },
      leftoverWorkspaces: [],
    };
    const latencies: number[] = [];
    let next = 0;
    let samples = 0;
    let peakRssMiB = baseline.rssMiB;
    const sampler = setInterval(() => {
      samples += 1;
      rssMiB(pid).then(
        (rss) => {
          peakRssMiB = Math.max(peakRssMiB, rss);
          if (samples % 25 === 0) log(`  ${report.requests} requests, RSS ${rss.toFixed(1)} MiB`);
        },
        () => {},
      );
    }, 200);

    const statusOf = (answerStatus: number) => {
      report.statuses[answerStatus] = (report.statuses[answerStatus] ?? 0) + 1;
    };
    /** Sends requests from `concurrency` workers until `done` says so. */
    const traffic = async (done: (sent: number) => boolean) => {
      let sent = 0;
      const worker = async () => {
        while (!done(sent)) {
          sent += 1;
          next += 1;
          const n = next;
          const scenario = pick(n);
          const sentAt = performance.now();
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
          latencies.push(performance.now() - sentAt);
          report.requests += 1;
          report.byRoute[scenario.route] = (report.byRoute[scenario.route] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
      return sent;
    };

    // Two rounds of the same traffic. The first fills whatever fills once (allocator arenas, the
    // heap's own sizing, libvips' operation cache); the second, of as many requests, must leave
    // memory where the first did, or something keeps a little of every request.
    const started = performance.now();
    const stopAt = started + options.durationMs / 2;
    const firstRound = await traffic(() => performance.now() >= stopAt);
    const elapsed = (performance.now() - started) / 1000;
    report.memory.firstRoundPeakRssMiB = peakRssMiB;
    report.memory.afterFirstRound = await settled();
    await traffic((sent) => sent >= firstRound);
    report.memory.afterSecondRound = await settled();
    clearInterval(sampler);

    latencies.sort((a, b) => a - b);
    report.latencyMs = {
      p50: Math.round(percentile(latencies, 0.5)),
      p95: Math.round(percentile(latencies, 0.95)),
      p99: Math.round(percentile(latencies, 0.99)),
      max: Math.round(latencies.at(-1) ?? 0),
    };
    report.requestsPerSecond = Math.round(firstRound / elapsed);
    report.leftoverWorkspaces = await leftoverWorkspaces(tmp);
    const { afterFirstRound: first, afterSecondRound: second } = report.memory;
    log(
      `${report.requests} requests in two rounds (${report.requestsPerSecond}/s), ` +
        `latency p50 ${report.latencyMs.p50} ms p95 ${report.latencyMs.p95} ms p99 ${report.latencyMs.p99} ms`,
    );
    log(
      `RSS ${baseline.rssMiB.toFixed(1)} → peak ${report.memory.firstRoundPeakRssMiB.toFixed(1)} → ` +
        `${first.rssMiB.toFixed(1)} → ${second.rssMiB.toFixed(1)} MiB; live heap ${baseline.heapMiB.toFixed(1)} → ` +
        `${first.heapMiB.toFixed(1)} → ${second.heapMiB.toFixed(1)} MiB (baseline, after each round)`,
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

/** Request workspaces still on disk: in the gateway's temp folder, and in each worker's own /tmp. */
async function leftoverWorkspaces(tmp: string): Promise<string[]> {
  const isWorkspace = (name: string) => /^fca-[A-Za-z0-9]{6}$/.test(name);
  const found = (await readdir(tmp)).filter(isWorkspace);
  for (const worker of (await readdir(tmp)).filter((name) => name.startsWith('lambda-tmp-'))) {
    const inside = await readdir(join(tmp, worker)).catch(() => []);
    found.push(...inside.filter(isWorkspace).map((name) => `${worker}/${name}`));
  }
  return found;
}
