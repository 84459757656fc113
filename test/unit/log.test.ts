import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('log lines', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('batched, writes the lines of one event-loop turn together once the turn ends', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      writes.push(String(chunk));
      return true;
    });
    // The configuration is read when the modules load: load them again with lines switched on.
    vi.stubEnv('LOG_LEVEL', 'info');
    vi.resetModules();
    const { batchLogLines, log } = await import('#shared/log.ts');
    batchLogLines();
    log('info', 'first', { requestId: 'a' });
    log('error', 'second', { requestId: 'b' });
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { level: 'info', message: 'first', requestId: 'a' },
      { level: 'error', message: 'second', requestId: 'b' },
    ]);
    log('info', 'third');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(2);
  });

  it('batched, still writes what is pending when the process exits in the same turn', () => {
    const script = [
      "import { batchLogLines, log } from '#shared/log.ts';",
      'batchLogLines();',
      "log('info', 'last words');",
      'process.exit(0);',
    ].join('\n');
    const output = execFileSync(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--input-type=module', '--eval', script],
      { env: { ...process.env, LOG_LEVEL: 'info' }, encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toMatchObject({ level: 'info', message: 'last words' });
  });

  it('on a terminal (LOG_FORMAT=text), writes one short readable line per request, without the metrics', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      writes.push(String(chunk));
      return true;
    });
    vi.stubEnv('LOG_LEVEL', 'info');
    vi.stubEnv('LOG_FORMAT', 'text');
    vi.resetModules();
    const { log, logRequest } = await import('#shared/log.ts');
    const request = {
      requestId: 'r-1',
      route: 'image-convert',
      tier: 'pro',
      status: 200,
      durationMs: 834,
      bytesIn: 83,
      bytesOut: 45_600,
      engineMs: 700,
    };
    logRequest(request);
    logRequest({ ...request, status: 429, errorCode: 'rate_limit_exceeded', bytesOut: undefined });
    log('error', 'request failed', { route: 'pdf-merge' });
    expect(writes).toHaveLength(3);
    expect(writes[0]).toMatch(/^\d\d:\d\d:\d\d 200 \/image-convert pro 834 ms, 83 bytes in, 45\.6 kB out\n$/);
    expect(writes[1]).toMatch(/ 429 rate_limit_exceeded \/image-convert pro 834 ms, 83 bytes in\n$/);
    expect(writes[2]).toMatch(/^\d\d:\d\d:\d\d error request failed route=pdf-merge\n$/);
    for (const line of writes) expect(line.length).toBeLessThan(100);

    // JSON, with its metrics, stays what Lambda writes.
    vi.stubEnv('LOG_FORMAT', undefined);
    vi.resetModules();
    writes.length = 0;
    (await import('#shared/log.ts')).logRequest(request);
    expect(JSON.parse(writes[0]!)).toMatchObject({ message: 'request', route: 'image-convert', _aws: {} });
  });
});
