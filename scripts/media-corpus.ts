import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largeMediaCorpus, writeCorpus } from '../test/corpus/media.ts';
import { expectedOutcome, runMatrix } from '../test/corpus/media-matrix.ts';
import { readByReference } from '../test/corpus/media-reference.ts';
import { FixtureServer } from '../test/support/fixture-server.ts';
import { startLocalGateway } from '../test/support/gateway.ts';

/**
 * The large run of the media corpus (`npm test` runs the small one, in
 * test/integration/media-real-world.test.ts): every file of largeMediaCorpus to every media route
 * through a local gateway, `--in-flight N` at once (default 8). Each answer is checked against
 * ffprobe's reading of the file, as the test does; the script prints one line per mismatch and
 * exits 1 when there is one. Run with the project's Node: `npx node scripts/media-corpus.ts`.
 */
const flag = process.argv.indexOf('--in-flight');
const inFlight = flag > 0 ? Number(process.argv[flag + 1]) : 8;

const dir = await mkdtemp(join(tmpdir(), 'media-corpus-large-'));
const sources = await new FixtureServer().start();
const gateway = await startLocalGateway({
  SOURCE_ALLOW_PRIVATE: 'true',
  API_KEYS: 'corpus:enterprise:1000000',
});
let mismatches = 0;
try {
  const files = [];
  for (const file of await writeCorpus(dir, largeMediaCorpus)) {
    const url = sources.serve(`/${file.name}`, await readFile(file.path));
    files.push({ ...file, url, reference: await readByReference(file.path) });
  }
  const started = performance.now();
  const answers = await runMatrix({
    gateway: gateway.url,
    files,
    headers: { 'x-api-key': 'corpus' },
    inFlight,
    dir,
  });
  for (const answer of answers) {
    const file = files.find((entry) => entry.name === answer.file);
    if (!file) continue;
    const expected = expectedOutcome(answer.route, file.reference);
    const ok =
      expected === 'success'
        ? answer.status === 200 && (answer.route === '/media-info' || (answer.outputFrames ?? 0) > 0)
        : answer.status >= 400 && answer.status < 500 && expected.includes(answer.error?.error ?? '');
    if (ok) continue;
    mismatches += 1;
    const got =
      answer.status === 200
        ? `200, ${answer.outputFrames ?? 0} frames`
        : `${answer.status} ${answer.error?.error}`;
    console.log(
      `${file.name} ${answer.route}: expected ${expected === 'success' ? 'success' : expected.join('|')}, got ${got}`,
    );
  }
  for (const route of new Set(answers.map((answer) => answer.route))) {
    const times = answers.filter((answer) => answer.route === route).map((answer) => answer.ms);
    times.sort((a, b) => a - b);
    console.log(`${route}: slowest ${times.at(-1)} ms, median ${times[times.length >> 1]} ms`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${files.length} files, ${answers.length} requests, ${inFlight} in flight, ${seconds} s: ${mismatches} mismatches`,
  );
} finally {
  await gateway.stop();
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = mismatches > 0 ? 1 : 0;
