/**
 * What the metrics cost one request: the request line with its embedded-metric fields (directives
 * built by Powertools once per shape, values filled in per request), against the line without
 * them and against Powertools building every line from scratch.
 * Nothing is written: the lines are built as `log` builds them and dropped.
 *
 *   node --disable-warning=ExperimentalWarning scripts/bench/metrics.ts
 */
import { type RequestFacts, requestMetrics, serializeRequestMetrics } from '#shared/metrics.ts';

const ROUNDS = 5;
const PER_ROUND = 50_000;

const facts = (i: number): RequestFacts & { requestId: string } => ({
  requestId: `bench-${i}`,
  route: i % 2 ? 'image-convert' : 'slugify',
  tier: 'free',
  status: i % 10 === 0 ? 400 : 200,
  errorCode: i % 10 === 0 ? 'validation_failed' : undefined,
  durationMs: 12,
  bytesIn: 96,
  bytesOut: 4_096,
  engineMs: i % 2 ? 8 : undefined,
});

const line = (fields: object) =>
  `${JSON.stringify({ level: 'info', message: 'request', time: new Date().toISOString(), ...fields })}\n`;

function measure(
  name: string,
  build: (i: number) => string,
): { name: string; microseconds: number; bytes: number } {
  const perRequest: number[] = [];
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i += 1) bytes = build(i).length;
    perRequest.push(Number(process.hrtime.bigint() - started) / 1000 / PER_ROUND);
  }
  perRequest.sort((a, b) => a - b);
  return { name, microseconds: perRequest[Math.floor(ROUNDS / 2)]!, bytes };
}

// A first pass warms both paths up, so that neither is measured while it is being compiled.
measure('warm-up', (i) => line(facts(i)));
measure('warm-up', (i) => line({ ...facts(i), ...requestMetrics(facts(i)) }));
const plain = measure('request line without metrics', (i) => line(facts(i)));
const withMetrics = measure('request line with metrics', (i) => {
  const f = facts(i);
  return line({ ...f, ...requestMetrics(f) });
});
const fromScratch = measure('Powertools from scratch', (i) => {
  const f = facts(i);
  return line({ ...f, ...serializeRequestMetrics(f) });
});
for (const row of [plain, withMetrics, fromScratch]) {
  console.log(
    `${row.name.padEnd(30)} ${row.microseconds.toFixed(2).padStart(7)} µs per request, ${row.bytes} bytes`,
  );
}
console.log(
  `metrics add ${(withMetrics.microseconds - plain.microseconds).toFixed(2)} µs and ${withMetrics.bytes - plain.bytes} bytes to each request (median of ${ROUNDS} rounds of ${PER_ROUND})`,
);
