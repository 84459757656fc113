import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BrowserContext, chromium } from 'playwright-core';

const run = promisify(execFile);

/** Where a Chromium may already be: the Debian package (its binary, then its wrapper) and others. */
const knownPaths = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

const findChromium = () => knownPaths.find((path) => existsSync(path));

/** How long installing Debian's chromium may take on a fresh machine. */
export const CHROMIUM_INSTALL_TIMEOUT_MS = 600_000;

async function aptGet(...args: string[]): Promise<void> {
  await run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', '-y', '-q', ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: CHROMIUM_INSTALL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * A Chromium for the browser tests: `CHROMIUM_PATH` if set, else one already installed, else
 * Debian's `chromium` package, installed here when the tests run as root on a Debian-like system
 * (package lists are refreshed only if the first attempt fails). Anything else fails with what to do.
 */
export async function ensureChromium(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist.`);
    return configured;
  }
  const found = findChromium();
  if (found) return found;
  const canInstall =
    process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    throw new Error(
      'No Chromium found for the browser tests: install it (Debian/Ubuntu: apt-get install chromium) or set CHROMIUM_PATH.',
    );
  }
  try {
    await aptGet('install', '--no-install-recommends', 'chromium');
  } catch {
    await aptGet('update');
    await aptGet('install', '--no-install-recommends', 'chromium');
  }
  const installed = findChromium();
  if (!installed) throw new Error('apt-get installed chromium, but no Chromium binary was found afterwards.');
  return installed;
}

/** Headless, no sandbox (containers run as root), and nothing that reaches beyond the machine. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile folder, removed again on close. */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  // Playwright passes the profile folder as --user-data-dir itself.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: chromiumArgs,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
