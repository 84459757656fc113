import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where a Chromium may already be: the Debian package (its binary, then its wrapper) and others. */
const knownPaths = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

const findChromium = () => knownPaths.find((path) => existsSync(path));

/**
 * A Chromium for the browser tests: `CHROMIUM_PATH` if set, else one already installed. Nothing is
 * installed here: `npm test` runs scripts/install-system-tools.sh first, which installs Debian's
 * chromium or prints the command that does.
 */
export async function ensureChromium(): Promise<string> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist.`);
    return configured;
  }
  const found = findChromium();
  if (found) return found;
  throw new Error(
    'No Chromium found for the browser tests: run `bash scripts/install-system-tools.sh` (as root it installs it), or `sudo apt-get install -y --no-install-recommends chromium`, or set CHROMIUM_PATH.',
  );
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
