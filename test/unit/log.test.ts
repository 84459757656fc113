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
});
