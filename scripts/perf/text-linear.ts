/**
 * Run time of the text and crypto routes' work against input size, on inputs built to make a
 * backtracking regular expression slow (runs with no letter after a sentence end, long runs
 * without a terminator, many partial entities). For each it times a quarter-size and a full-size
 * input and prints the ratio: linear work shows about 4, quadratic about 16. Not part of
 * `npm test` (wall-clock times vary by machine); run it by hand:
 *
 *   node --disable-warning=ExperimentalWarning scripts/perf/text-linear.ts [bytes]
 */
import { decodeToken } from '#shared/crypto/jwt-decode.ts';
import { parseScryptPhc } from '#shared/crypto/scrypt-phc.ts';
import { decodeText } from '#shared/text/decode.ts';
import { encodeText } from '#shared/text/encode.ts';
import { slugify } from '#shared/text/slugify.ts';
import { changeCase } from '#shared/text/text-case.ts';
import { textStats } from '#shared/text/text-stats.ts';

const size = Number(process.argv[2] ?? 1_000_000);
const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
const quietly = (work: () => unknown) => {
  try {
    work();
  } catch {
    // refusing the input is an answer too; only the time matters here
  }
};

const cases: Array<[string, string, (text: string) => unknown]> = [
  ['text-case sentence', '. ', (text) => changeCase(text, 'sentence')],
  ['text-case sentence', '\n', (text) => changeCase(text, 'sentence')],
  ['text-case sentence', '.)" ', (text) => changeCase(text, 'sentence')],
  ['text-case title', '. ', (text) => changeCase(text, 'title')],
  ['text-case camel', 'aB1 ', (text) => changeCase(text, 'camel')],
  ['text-case snake', 'XMLHttp', (text) => changeCase(text, 'snake')],
  ['text-stats', ' \n', textStats],
  ['text-stats', '. ', textStats],
  ['slugify', '-_ ', (text) => slugify(text, { separator: '-', lowercase: true })],
  ['slugify', "a'", (text) => slugify(text, { separator: '-', lowercase: true })],
  ['decode html', '&#x', (text) => decodeText(text, 'html')],
  ['decode html', '&a', (text) => decodeText(text, 'html')],
  ['decode base64', 'QUJD', (text) => decodeText(text, 'base64')],
  ['decode url', '%4', (text) => decodeText(text, 'url')],
  ['encode html', '<&>', (text) => encodeText(text, 'html')],
  ['jwt-decode', 'a.', decodeToken],
  ['scrypt PHC parse', '$scrypt$ln=1,r=1,p=1$', parseScryptPhc],
];

/** The median of three runs, so that one garbage collection does not make a ratio. */
const time = (work: (text: string) => unknown, text: string) => {
  const runs = [0, 1, 2].map(() => {
    const started = performance.now();
    quietly(() => work(text));
    return performance.now() - started;
  });
  return runs.sort((a, b) => a - b)[1]!;
};

for (const [name, unit, work] of cases) {
  const small = fill(unit, size / 4);
  const large = fill(unit, size);
  time(work, small); // warm up
  const quarter = time(work, small);
  const full = time(work, large);
  const label = `${name} on ${JSON.stringify(unit)}`.padEnd(44);
  process.stdout.write(
    `${label} ${quarter.toFixed(1).padStart(8)} ms ${full.toFixed(1).padStart(8)} ms  ×${(full / Math.max(quarter, 0.01)).toFixed(1)}\n`,
  );
}
