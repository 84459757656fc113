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
import { type LoadReport, percentile, problemsOf, settleLimit } from './load/report.ts';
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
const SETTLE_MS = 30_000;

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
