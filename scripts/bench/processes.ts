import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, open, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/**
 * Processes the benchmarks start and watch: finding the alternative tools, running them, and
 * reading peak memory (resident set) from /proc, the only place Linux reports it for a process
 * that is still running.
 */

/**
 * The first executable of that name on PATH that is a real binary (ELF), not a wrapper script, so
 * that a tool's time is its own and not an interpreter's start-up.
 */
export async function findTool(...names: string[]): Promise<string | undefined> {
  for (const name of names) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, name);
      try {
        await access(candidate, constants.X_OK);
        const file = await open(await realpath(candidate));
        const head = Buffer.alloc(4);
        await file.read(head, 0, 4, 0);
        await file.close();
        if (head.toString('latin1') === '\x7fELF') return candidate;
      } catch {
        // not there, or not readable: try the next one
      }
    }
  }
  return undefined;
}

/** The first line a tool prints about its version. */
export async function toolVersion(path: string, args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await runTool(path, args, { allowFailure: true });
  return (stdout || stderr).split('\n').find((line) => line.trim() !== '') ?? '';
}

/** The peak resident set (VmHWM) a /proc status reports. */
const peakOf = (status: string) => {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
};

export async function statusOf(pid: number): Promise<string | undefined> {
  try {
    return await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Every live process whose parent chain leads to `root` (not `root` itself). */
export async function descendantsOf(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

export interface PeakMemory {
  /** Peak resident set of the watched process itself (VmHWM). */
  ownBytes: number;
  /** The largest peak of any process it started meanwhile (ffmpeg, ffprobe), sampled. */
  childBytes: number;
}

/**
 * Watches a running process: `reset` restarts its own high-water mark (clear_refs), `stop` reports
 * its peak and that of its children since, sampled every `everyMs`.
 */
export function watchPeak(pid: number, everyMs = 20) {
  let childPeak = 0;
  let timer: NodeJS.Timeout | undefined;
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    try {
      for (const child of await descendantsOf(pid)) {
        const status = await statusOf(child);
        if (status) childPeak = Math.max(childPeak, peakOf(status));
      }
    } finally {
      sampling = false;
    }
  };
  return {
    /** Restarts the high-water mark at the current resident set, which it answers. */
    async reset(): Promise<number> {
      await writeFile(`/proc/${pid}/clear_refs`, '5');
      childPeak = 0;
      timer = setInterval(() => void sample(), everyMs);
      const status = await statusOf(pid);
      return status ? peakOf(status) : 0;
    },
    async stop(): Promise<PeakMemory> {
      clearInterval(timer);
      const status = await statusOf(pid);
      return { ownBytes: status ? peakOf(status) : 0, childBytes: childPeak };
    },
  };
}

export interface ToolRun {
  ms: number;
  /** Peak resident set of the process, sampled every 10 ms. */
  peakBytes: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs a command to its end, timing it and sampling its memory; fails on a non-zero exit. */
export function runTool(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; allowFailure?: boolean } = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < 1_000_000) stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 100_000) stderr += chunk.toString();
    });
    let peak = 0;
    // The tools measured here do their work in one process; its own high-water mark is exact.
    const sample = async () => {
      const status = child.pid === undefined ? undefined : await statusOf(child.pid);
      if (status) peak = Math.max(peak, peakOf(status));
    };
    const timer = setInterval(() => void sample(), 10);
    child.once('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearInterval(timer);
      const ms = performance.now() - start;
      if (code !== 0 && !options.allowFailure) {
        reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.slice(-600)}`));
        return;
      }
      resolve({ ms, peakBytes: peak, stdout, stderr, code });
    });
  });
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux counts 100 ticks a second). */
export async function cpuTimeMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The live child processes of `pid` (the gateway's workers), from /proc. */
export async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  try {
    for (const task of await readdir(`/proc/${pid}/task`)) {
      const listed = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8');
      for (const child of listed.split(' ')) if (child.trim()) found.push(Number(child));
    }
  } catch {
    // the server is gone: no children to count
  }
  return found;
}

/** The gateway's live worker processes of one function (`worker.ts <function> <memory>`). */
export async function workersOf(gatewayPid: number, functionName: string): Promise<number[]> {
  const workers: number[] = [];
  for (const pid of await childrenOf(gatewayPid)) {
    const args = await readFile(`/proc/${pid}/cmdline`, 'utf8').then(
      (text) => text.split('\0'),
      () => [],
    );
    const at = args.findIndex((arg) => arg.endsWith('infra/local/worker.ts'));
    if (at >= 0 && args[at + 1] === functionName) workers.push(pid);
  }
  return workers;
}
