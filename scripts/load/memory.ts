import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer } from 'node:net';

/* How the load run watches the gateway's memory: its pid, its resident size, its V8 heap. */

/** The pid of our child process that listens on `port` (the gateway), found through /proc. */
export async function pidListeningOn(port: number): Promise<number> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':').at(-1);
      if (local && Number.parseInt(local, 16) === port && fields[3] === '0A') inodes.add(fields[9] ?? '');
    }
  }
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) return Number(entry);
    }
  }
  throw new Error(`no child process listens on port ${port}`);
}

/** Resident memory of a process, in MiB. */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** A free loopback port, for the gateway's inspector. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The gateway's V8 inspector (loopback only): a full garbage collection before each measurement
 * tells retained memory from heap the collector simply has not reclaimed yet.
 */
export class Inspector {
  #socket: WebSocket;
  #next = 0;
  readonly #pending = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
      if (message.id !== undefined) this.#pending.get(message.id)?.(message.result ?? {});
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
      webSocketDebuggerUrl: string;
    }>;
    const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }

  call(method: string): Promise<Record<string, unknown>> {
    this.#next += 1;
    const id = this.#next;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#socket.send(JSON.stringify({ id, method }));
    });
  }

  /** Live heap in MiB after two full collections. */
  async heapAfterGc(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call('Runtime.getHeapUsage');
    return Number(usage.usedSize) / 1024 / 1024;
  }

  close(): void {
    this.#socket.close();
  }
}
