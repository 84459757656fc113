import { readdirSync, readFileSync } from 'node:fs';

/** A process and every process it started, and theirs, read from /proc; empty where there is none. */
export function processTree(root: number): number[] {
  const found: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
        for (const child of children.split(' ')) if (child.trim()) pending.push(Number(child));
      }
      found.push(pid);
    } catch {
      // gone meanwhile, or no /proc on this system
    }
  }
  return found;
}

/** A process's resident memory in bytes, or 0 once it is gone. */
export function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Kills the processes given at once (SIGKILL); those already gone are skipped. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
