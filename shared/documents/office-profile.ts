import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The LibreOffice user profile each conversion starts from: written fresh into the request's
 * workspace, so that nothing one document sets (or leaves locked) reaches the next, and so that
 * the settings below hold whatever a previous run saved.
 *
 * - Macros: the highest security level (only signed macros from trusted sources, and none are
 *   trusted) and macro execution disabled outright.
 * - Links: Writer and Calc never update links to other files on load, and linked pictures from
 *   documents of unknown origin are blocked (BlockUntrustedRefererLinks).
 * - Start-up: the graphics self-test that a new profile would trigger is skipped (see below).
 * - Network: a manual proxy at a closed loopback port for every scheme and no exceptions, so that
 *   whatever the settings above miss has nowhere to go; the process also gets a dead proxy in its
 *   environment (office-convert.ts).
 */

/** A closed port on the loopback: the discard service, which nothing here runs. */
export const deadProxy = { host: '127.0.0.1', port: 9 } as const;

type Value = string | number | boolean;

/** Read by LibreOffice as major.minor; compared with the running release's. */
const lastVersionSeen = '99.9';

const settings: ReadonlyArray<[path: string, name: string, value: Value]> = [
  ['/org.openoffice.Office.Common/Security/Scripting', 'MacroSecurityLevel', 3],
  ['/org.openoffice.Office.Common/Security/Scripting', 'DisableMacrosExecution', true],
  ['/org.openoffice.Office.Common/Security/Scripting', 'BlockUntrustedRefererLinks', true],
  // Writer: 0 always, 1 on request, 2 never. Calc: 0 always, 1 never, 2 on request.
  ['/org.openoffice.Office.Writer/Content/Update', 'Link', 2],
  ['/org.openoffice.Office.Calc/Content/Update', 'Link', 1],
  ['/org.openoffice.Inet/Settings', 'ooInetProxyType', 1],
  ['/org.openoffice.Inet/Settings', 'ooInetNoProxy', ''],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyName', deadProxy.host],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPProxyPort', deadProxy.port],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyName', deadProxy.host],
  ['/org.openoffice.Inet/Settings', 'ooInetHTTPSProxyPort', deadProxy.port],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyName', deadProxy.host],
  ['/org.openoffice.Inet/Settings', 'ooInetFTPProxyPort', deadProxy.port],
  // Nothing to gain from these in a one-shot, headless run.
  ['/org.openoffice.Office.Common/Misc', 'UseOpenCL', false],
  ['/org.openoffice.Office.Common/Misc', 'FirstRun', false],
  // LibreOffice runs its graphics self-test (about 5 s of CPU) on the first start after an upgrade,
  // judged by the last version the profile has seen; a fresh profile has seen none, so every
  // conversion paid for it. A version above any release marks every release as seen.
  ['/org.openoffice.Setup/Product', 'ooSetupLastVersion', lastVersionSeen],
];

const xmlValue = (value: Value) => String(value);

/** registrymodifications.xcu holding `settings`, finalized so no later layer can change them. */
export function registryModifications(): string {
  const items = settings.map(
    ([path, name, value]) =>
      `<item oor:path="${path}"><prop oor:name="${name}" oor:op="fuse" oor:finalized="true"><value>${xmlValue(value)}</value></prop></item>`,
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
    `${items.join('\n')}\n</oor:items>\n`
  );
}

/** Writes a fresh profile under `dir` and returns its `-env:UserInstallation` URL. */
export async function writeProfile(dir: string): Promise<string> {
  await mkdir(join(dir, 'user'), { recursive: true });
  await writeFile(join(dir, 'user', 'registrymodifications.xcu'), registryModifications());
  return `file://${dir}`;
}
