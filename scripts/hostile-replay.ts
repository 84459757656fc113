/**
 * Replays the hostile inputs of issue 15 (huge video frames, SVG data: rasters, the quadratic
 * sentence case, blur chains, <use> amplification) against a local gateway, and prints each
 * answer's status, error code, time and the gateway process tree's peak resident memory.
 *
 *   npm run replay:hostile                                   # starts a gateway of its own
 *   npm run replay:hostile -- --url http://127.0.0.1:3000    # a running one (SOURCE_ALLOW_PRIVATE=true)
 *       [--pid <gateway pid>] [--key <x-api-key>] [--rounds 2]
 *
 * Without --pid the gateway is found as the process listening on the URL's port (Linux /proc);
 * memory is n/a when it cannot be seen. Free tier allows 10 requests a minute: pass --key of an
 * enterprise key to a running gateway (the one started here gets its own). Exits 1 if any answer
 * is 5xx or fails, or the tree passed 3 GB. The first round's times include starting each
 * function's worker processes (cold starts, as on Lambda) and the tree's memory includes the
 * workers kept warm by earlier cases (the requests sent "meanwhile" and the sentence case are
 * warmed first, so their times are the work); --rounds 2 replays the set again.
 */
import { parseArgs } from 'node:util';
import { Workspace } from '#shared/workspace.ts';
import { FixtureServer } from '../test/support/fixture-server.ts';
import { startLocalGateway } from '../test/support/gateway.ts';
import { hostileCases, type ReplayRequest } from './replay/cases.ts';
import { PeakSampler, pidListeningOn } from './replay/memory.ts';

const GB = 1024 ** 3;
const treeLimitBytes = 3 * GB;
/** The tree of a gateway started here is killed past this, so the replay cannot take the machine down. */
const killBytes = 4 * GB;
const ownKey = 'hostile-replay-key';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    pid: { type: 'string' },
    key: { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
});

interface Row {
  case: string;
  route: string;
  status: string;
  error: string;
  seconds: string;
  peak: string;
}

async function send(base: string, key: string | undefined, request: ReplayRequest) {
  if (request.afterMs) await new Promise((resolve) => setTimeout(resolve, request.afterMs));
  return timed(base, key, request);
}

async function timed(base: string, key: string | undefined, request: ReplayRequest) {
  const started = performance.now();
  let status = 'ERR';
  let error = '-';
  try {
    const response = await fetch(`${base}${request.route}`, {
      method: request.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(300_000),
    });
    status = String(response.status);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (!response.ok) error = (JSON.parse(bytes.toString()) as { error?: string }).error ?? '?';
  } catch (caught) {
    error = (caught as Error).name;
  }
  return { status, error, seconds: ((performance.now() - started) / 1000).toFixed(2) };
}

function printTable(rows: Row[]): void {
  const columns = ['case', 'route', 'status', 'error', 'seconds', 'peak'] as const;
  const headings: Row = {
    case: 'case',
    route: 'route',
    status: 'status',
    error: 'error code',
    seconds: 's',
    peak: 'peak tree RSS',
  };
  const widths = columns.map((column) => Math.max(...[headings, ...rows].map((row) => row[column].length)));
  const line = (row: Row) => `| ${columns.map((column, i) => row[column].padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(headings));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

const workspace = new Workspace();
const sources = await new FixtureServer().start();
const own = values.url
  ? undefined
  : await startLocalGateway({ SOURCE_ALLOW_PRIVATE: 'true', API_KEYS: `${ownKey}:enterprise:100000` });
const base = (values.url ?? own!.url).replace(/\/$/, '');
const key = values.key ?? (own ? ownKey : undefined);
const pid = values.pid ? Number(values.pid) : pidListeningOn(Number(new URL(base).port || 80));
if (pid === undefined) console.log(`No process seen listening on ${base}: peak memory is n/a.`);

let failed = false;
const rows: Row[] = [];
try {
  const cases = await hostileCases(sources, await workspace.dir());
  console.log(`Replaying ${cases.length} cases against ${base} (gateway pid ${pid ?? 'n/a'})\n`);
  const rounds = Number(values.rounds);
  for (let round = 1; round <= rounds; round += 1)
    for (const replayCase of cases) {
      const sampler =
        pid === undefined
          ? undefined
          : new PeakSampler(pid, own ? killBytes : Number.POSITIVE_INFINITY, () => {
              console.log(`The gateway tree passed ${killBytes / GB} GB: stopping it.`);
              void own?.stop();
            });
      for (const request of replayCase.requests.filter((each) => each.warm)) {
        await timed(base, key, { ...request, body: request.warm?.body });
      }
      sampler?.start();
      const answers = await Promise.all(replayCase.requests.map((request) => send(base, key, request)));
      const peak = sampler?.stop();
      if (peak !== undefined && peak > treeLimitBytes) failed = true;
      replayCase.requests.forEach((request, i) => {
        const answer = answers[i]!;
        if (answer.status === 'ERR' || Number(answer.status) >= 500) failed = true;
        const peakText = peak === undefined ? 'n/a' : `${(peak / 2 ** 20).toFixed(0)} MiB`;
        const name = rounds > 1 ? `${round}: ${replayCase.name}` : replayCase.name;
        rows.push({ case: name, route: request.route, ...answer, peak: peakText });
      });
    }
} finally {
  await own?.stop();
  await sources.stop();
  await workspace.dispose();
}
printTable(rows);
console.log(
  failed
    ? '\nFAILED: a 5xx or failed answer, or the gateway tree passed 3 GB.'
    : '\nAll answers below 500; the tree stayed under 3 GB.',
);
process.exitCode = failed ? 1 : 0;
