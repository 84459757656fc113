import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';
import { maxProcessDataBytes } from '#shared/documents/browser-limits.ts';
import { documentsConfig } from '#shared/documents/config.ts';
import { engineUnavailable } from '#shared/engines.ts';
import { log } from '#shared/log.ts';
import { killAll, processTree } from '#shared/process-tree.ts';

/**
 * Flags of the packed Chromium that this service leaves out. `--single-process` crashes as soon as
 * a second browser context opens a page, and each request needs a context of its own; the others
 * would turn the web's own protections off (same-origin policy, mixed content), which the request
 * guard does not replace.
 */
const refusedFlags = new Set([
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
]);

/**
 * A proxy that accepts connections and drops them at once. Everything the request guard cannot
 * intercept (websockets, a worker's own fetches, preconnects) goes to it and gets nowhere; a
 * listening socket of our own cannot be taken over by another process the way a closed port can.
 */
async function startDeadProxy(): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  return server;
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('dead proxy has no port');
  return address.port;
}

/** The browser's flags: the packed build's own, less the refused ones, plus the dead proxy. */
export function browserArgs(proxyPort: number): string[] {
  return [
    ...chromium.args.filter((flag) => !refusedFlags.has(flag)),
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // WebRTC sends UDP (STUN, TURN) past the proxy and past request interception: with this policy it
    // sends nothing that does not go through the proxy, and the proxy is dead.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Chromium sends loopback past any proxy unless told not to: `<-loopback>` takes that rule away.
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    '--proxy-bypass-list=<-loopback>',
  ];
}

/**
 * The browser's environment: none of the function's AWS credentials or endpoints (a page that got
 * past the guard must find nothing to use), only what Chromium needs to start and find fonts.
 */
export function browserEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith('AWS_') || name.startsWith('_X_AMZN')) continue;
    if (/^(PATH|HOME|TMPDIR|LANG|LC_\w+|TZ|LD_LIBRARY_PATH|FONTCONFIG_\w+)$/.test(name)) kept[name] = value;
  }
  if (documentsConfig.FONTCONFIG_FILE !== undefined) kept.FONTCONFIG_FILE = documentsConfig.FONTCONFIG_FILE;
  return kept;
}

/**
 * The browser to run: CHROMIUM_EXECUTABLE (or the local unpacked build), else the packed one,
 * unpacked to /tmp. Neither there → 503 engine_unavailable naming Chromium, not a 500.
 */
async function chromiumExecutable(): Promise<string> {
  const configured = documentsConfig.CHROMIUM_EXECUTABLE;
  if (configured !== undefined) {
    if (!existsSync(configured)) throw engineUnavailable('chromium', new Error(`${configured} not found`));
    return configured;
  }
  return chromium
    .executablePath(documentsConfig.CHROMIUM_PACK_DIR)
    .catch((error: unknown) => Promise.reject(engineUnavailable('chromium', error)));
}

/**
 * A launcher that starts the browser with a data limit (`ulimit -d`) on each of its processes: a
 * script or a layout that asks for more private memory is refused it (a script gets a RangeError, a
 * renderer that cannot go on ends), instead of the function running out of memory. Address space
 * the browser only reserves is not counted, so the limit does not get in its way.
 */
async function limitedLauncher(executable: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'browser-'));
  const path = join(dir, 'chromium');
  const kib = Math.floor(maxProcessDataBytes / 1024);
  await writeFile(
    path,
    `#!/bin/sh\nulimit -d ${kib} || exit 1\nexec '${executable.replaceAll("'", "'\\''")}' "$@"\n`,
  );
  await chmod(path, 0o700);
  return path;
}

async function launchBrowser(): Promise<Browser> {
  const started = Date.now();
  const executablePath = await limitedLauncher(await chromiumExecutable());
  const proxy = await startDeadProxy();
  const browser = await puppeteer.launch({
    executablePath,
    args: browserArgs(portOf(proxy)),
    headless: 'shell',
    // DevTools over the browser's own stdio pipes, not a port on loopback: when the process that
    // launched it ends, even killed, the pipe closes and Chromium exits with it.
    pipe: true,
    env: browserEnv(process.env),
    // Puppeteer's own signal handlers would close the browser under the worker's feet.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    protocolTimeout: 60_000,
  });
  browser.once('disconnected', () => proxy.close());
  log('info', 'browser launched', { ms: Date.now() - started });
  return browser;
}

let current: Promise<Browser> | undefined;

/**
 * The function instance's one browser, launched on first use and reused by later requests (each
 * in its own context). A browser that crashed or was closed is launched again on the next call.
 */
export function sharedBrowser(): Promise<Browser> {
  if (current === undefined) {
    const launching = launchBrowser();
    current = launching;
    launching.then(
      (browser) =>
        browser.once('disconnected', () => {
          if (current === launching) current = undefined;
        }),
      () => {
        if (current === launching) current = undefined;
      },
    );
  }
  return current;
}

/** Closes the shared browser, e.g. after a page that would not let go of it. */
export async function discardBrowser(): Promise<void> {
  const launching = current;
  current = undefined;
  const browser = await launching?.catch(() => undefined);
  if (browser === undefined) return;
  const root = browser.process()?.pid;
  // Read before closing: once the browser has exited, its children are no longer found under it.
  const processes = root === undefined ? [] : processTree(root);
  await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 2000))]).catch(() => {});
  // Whatever of it is still running (a renderer busy in a page) is killed, so its memory is free.
  killAll(processes);
}
