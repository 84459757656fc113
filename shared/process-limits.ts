import { availableParallelism } from 'node:os';
import { config } from '#shared/config.ts';

/**
 * The kernel's limits every ffmpeg and ffprobe process runs under, so that no input can make one
 * take more memory or CPU than its function has, whatever it claims in its headers:
 *
 * - data (RLIMIT_DATA): the memory the process may write to (heap and private mappings). Address
 *   space (RLIMIT_AS) would also count reservations that never cost memory (thread stacks, malloc's
 *   per-thread arenas), so a limit on it would refuse work that fits. Past it an allocation fails
 *   and the tool says "Cannot allocate memory".
 * - CPU time (RLIMIT_CPU): the run's deadline in every core's seconds, a backstop for a process the
 *   deadline's kill could not reach. At the soft limit the kernel sends SIGXCPU (ffmpeg stops and
 *   exits 255, ffprobe dies of it), at the hard limit a few seconds later SIGKILL.
 * - core files: none, so a crash never writes a copy of the caller's media to disk.
 *
 * They are set by a POSIX shell (`ulimit`) that then replaces itself with the tool (`exec`), the
 * same in Lambda, which has /bin/sh but no prlimit, and on any development machine. The binary and
 * its arguments are the shell's positional parameters, never part of its script.
 */

const MiB = 1024 * 1024;

/** What the Lambda function's own process needs beside the tool: Node, the handler, buffers. */
const reservedForNodeBytes = 256 * MiB;
/** The least a tool is given, whatever the function's size: ffprobe on a small file needs ~30 MiB. */
const minimumDataBytes = 256 * MiB;
/** The function size assumed where none is set (tests, the gateway before it sets one): the media file routes'. */
const defaultFunctionMemoryMiB = 3008;
/** Seconds between SIGXCPU and SIGKILL, for ffmpeg to close its output after the soft limit. */
const hardCpuGraceSeconds = 5;

export interface ProcessLimits {
  dataBytes: number;
  cpuSeconds: number;
}

/** The function's memory as Lambda states it (AWS_LAMBDA_FUNCTION_MEMORY_SIZE), in bytes. */
export function functionMemoryBytes(memoryMiB = config.AWS_LAMBDA_FUNCTION_MEMORY_SIZE): number {
  return (memoryMiB ?? defaultFunctionMemoryMiB) * MiB;
}

/** The limits for one run: all the function's memory but Node's share, and the deadline on every core. */
export function processLimits(
  timeoutMs: number,
  memoryBytes = functionMemoryBytes(),
  cores = availableParallelism(),
): ProcessLimits {
  return {
    dataBytes: Math.max(minimumDataBytes, memoryBytes - reservedForNodeBytes),
    cpuSeconds: Math.max(1, Math.ceil((timeoutMs / 1000) * cores)),
  };
}

/**
 * The shell's script. `ulimit` without -H or -S sets both limits at once (lowering a hard limit
 * below the current soft one is refused), then the soft CPU limit is lowered under the hard one.
 */
const script = 'ulimit -c 0 && ulimit -d "$1" && ulimit -t "$3" && ulimit -S -t "$2" && shift 3 && exec "$@"';

/** The shell that applies the limits. */
export const limitShell = '/bin/sh';

/**
 * The command that runs `binary args…` under `limits`: `/bin/sh -c <script> sh <data KiB> <cpu s>
 * <hard cpu s> <binary> <args…>`. When the binary cannot be run, the shell exits 126 (not
 * executable) or 127 (not found), codes neither ffmpeg nor ffprobe uses.
 */
export function limitedCommand(
  binary: string,
  args: readonly string[],
  limits: ProcessLimits,
): { file: string; args: string[] } {
  const dataKiB = Math.floor(limits.dataBytes / 1024);
  return {
    file: limitShell,
    args: [
      '-c',
      script,
      'sh',
      String(dataKiB),
      String(limits.cpuSeconds),
      String(limits.cpuSeconds + hardCpuGraceSeconds),
      binary,
      ...args,
    ],
  };
}

/** Exit codes of the shell when `exec` failed: the tool never started. */
export const shellExecFailures: ReadonlyMap<number, string> = new Map([
  [126, 'EACCES: the binary is not executable'],
  [127, 'ENOENT: the binary was not found'],
]);

export const describeBytes = (bytes: number) => `${Math.round(bytes / MiB)} MiB`;
