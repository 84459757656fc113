import { readFileSync } from 'node:fs';
import { processTree } from '#shared/process-tree.ts';

/** The processes a process started, and theirs, read from /proc (Linux). */
export const descendants = (pid: number = process.pid): number[] => processTree(pid).slice(1);

/** A process's environment as it was started (`/proc/<pid>/environ`); empty once it has gone. */
export function environmentOf(pid: number): Record<string, string> {
  try {
    const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    return Object.fromEntries(entries.map((entry) => /^([^=]*)=(.*)$/s.exec(entry)!.slice(1, 3)));
  } catch {
    return {};
  }
}

/** A process's command line, or undefined once it is gone. */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Whether a process exists (and is not a zombie waiting for its parent). */
export function isRunning(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

/** The worker processes of the local gateway among `pids`, by function name. */
export function workersOf(functionName: string, pids: number[] = descendants()): number[] {
  return pids.filter((pid) => {
    const args = commandLine(pid) ?? [];
    const at = args.findIndex((arg) => arg.endsWith('infra/local/worker.ts'));
    return at >= 0 && args[at + 1] === functionName;
  });
}

/** Polls until `check` holds, or gives up after `limitMs` (a bound, never an expected time). */
export async function waitFor(check: () => boolean, limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/**
 * Whether a process's main thread sleeps on a futex (a handler stuck in `Atomics.wait`), rather
 * than in the event loop's wait for input, as an idle worker does.
 */
export function isBlockedOnFutex(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8').startsWith('futex');
  } catch {
    return false;
  }
}
