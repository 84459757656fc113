import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { descendants } from '../../test/support/process-tree.ts';

/** Resident memory of one process in bytes (0 once it is gone). */
function residentBytes(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants (shared pages counted in each). */
export function treeBytes(pid: number): number {
  return [pid, ...descendants(pid)].reduce((sum, each) => sum + residentBytes(each), 0);
}

/**
 * Samples a process tree every 50 ms and keeps the peak. `onOver` runs once if the tree passes
 * `limitBytes`: the replay's guard against taking the machine down with the gateway it started.
 */
export class PeakSampler {
  readonly #pid: number;
  readonly #limitBytes: number;
  readonly #onOver: () => void;
  #timer: NodeJS.Timeout | undefined;
  #peak = 0;
  #over = false;

  constructor(pid: number, limitBytes = Number.POSITIVE_INFINITY, onOver: () => void = () => {}) {
    this.#pid = pid;
    this.#limitBytes = limitBytes;
    this.#onOver = onOver;
  }

  start(): void {
    this.#peak = treeBytes(this.#pid);
    this.#timer = setInterval(() => {
      const bytes = treeBytes(this.#pid);
      this.#peak = Math.max(this.#peak, bytes);
      if (bytes > this.#limitBytes && !this.#over) {
        this.#over = true;
        this.#onOver();
      }
    }, 50);
  }

  /** Stops sampling and answers the peak in bytes. */
  stop(): number {
    clearInterval(this.#timer);
    return this.#peak;
  }
}

/**
 * The process listening on a loopback TCP port, found as `ss -ltnp` would: the socket's inode in
 * /proc/net/tcp, then the process holding that socket. Undefined when not found (or not ours to see).
 */
export function pidListeningOn(port: number): number | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[] = [];
    try {
      lines = readFileSync(table, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // fields: sl, local_address, rem_address, st (0A = LISTEN), ..., inode at index 9
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${entry}/fd/${fd}`);
        if (inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '')) return Number(entry);
      } catch {}
    }
  }
  return undefined;
}
