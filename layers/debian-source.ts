import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A package's source as Debian 12 (bookworm) ships it, security updates included: the release line
 * Debian's security team maintains for bookworm's lifetime, with its patches (ffmpeg, qpdf). apt fetches it
 * through a source list of its own (nothing of the machine's apt configuration changes) and checks
 * every file against the signed index; `dpkg-source -x` unpacks it with Debian's patches applied.
 */

/** The archives of Debian 12 and its security updates, for sources only. */
const sourceList = [
  'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main',
  'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main',
].join('\n');

/** apt options that keep its lists and cache inside `dir`. */
function aptOptions(dir: string): string[] {
  return [
    '-o',
    `Dir::Etc::SourceList=${join(dir, 'sources.list')}`,
    '-o',
    'Dir::Etc::SourceParts=/nonexistent',
    '-o',
    `Dir::State::Lists=${join(dir, 'lists')}`,
    '-o',
    `Dir::Cache=${join(dir, 'cache')}`,
    '-o',
    'APT::Sandbox::User=root',
  ];
}

const run = (command: string, args: string[], cwd?: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** Debian's own ordering of versions (epochs, tildes, revisions). */
function isNewer(version: string, than: string): boolean {
  try {
    execFileSync('dpkg', ['--compare-versions', version, 'gt', than], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Refreshes the source index in `dir` and returns the newest version of source package `name` it
 * lists, e.g. `7:5.1.9-0+deb12u1` for ffmpeg.
 */
export function newestDebianVersion(name: string, dir: string): string {
  mkdirSync(join(dir, 'lists', 'partial'), { recursive: true });
  mkdirSync(join(dir, 'cache'), { recursive: true });
  writeFileSync(join(dir, 'sources.list'), `${sourceList}\n`);
  run('apt-get', [...aptOptions(dir), '-q', 'update']);
  const shown = run('apt-cache', [...aptOptions(dir), 'showsrc', '--only-source', name]);
  const versions = [...shown.matchAll(/^Version: (\S+)$/gm)].map((match) => match[1] ?? '');
  const newest = versions.reduce((best, version) => (!best || isNewer(version, best) ? version : best), '');
  if (!newest) throw new Error(`Debian lists no ${name} source package`);
  return newest;
}

/** The upstream release of a Debian version: `7:5.1.9-0+deb12u1` → `5.1.9`. */
export const upstreamRelease = (debianVersion: string) =>
  debianVersion.replace(/^\d+:/, '').replace(/-[^-]+$/, '');

/**
 * Downloads and unpacks source package `name` at `debianVersion` into `<dir>/src`, unless it is
 * there already, with the source index kept in `aptDir` (see newestDebianVersion).
 */
export function unpackedSource(name: string, aptDir: string, dir: string, debianVersion: string): string {
  const source = join(dir, 'src');
  if (existsSync(join(source, 'debian', 'changelog'))) return source;
  mkdirSync(dir, { recursive: true });
  run('apt-get', [...aptOptions(aptDir), '-q', 'source', '--download-only', `${name}=${debianVersion}`], dir);
  const dsc = readdirSync(dir).find((name) => name.endsWith('.dsc'));
  if (!dsc) throw new Error(`apt-get fetched no .dsc for ${name} ${debianVersion}`);
  // Checks the tarballs against the .dsc, whose own checksums apt checked against the signed index.
  run('dpkg-source', ['-x', dsc, 'src'], dir);
  return source;
}

/** The version of Debian's own binary package `name` installed here (what makes the tests' fixtures), if any. */
export function installedDebianVersion(name: string): string | undefined {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields
    const shown = execFileSync('dpkg-query', ['-W', '-f', '${Status} ${Version}', name], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /^install ok installed (\S+)$/.exec(shown)?.[1];
  } catch {
    return undefined;
  }
}

const missingPackages = (packages: readonly string[]) =>
  packages.filter((name) => {
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields
      const status = execFileSync('dpkg-query', ['-W', '-f', '${db:Status-Status}', name], {
        encoding: 'utf8',
      });
      return status !== 'installed';
    } catch {
      return true;
    }
  });

/**
 * Installs the Debian packages a compile needs (`build` names it in the message), as root;
 * otherwise names the command.
 */
export function ensureBuildPackages(build: string, packages: readonly string[]): void {
  const missing = missingPackages(packages);
  if (missing.length === 0) return;
  const command = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing];
  if (process.getuid?.() !== 0) {
    throw new Error(`The ${build} build needs Debian packages: sudo ${command.join(' ')}`);
  }
  execFileSync(command[0] ?? 'apt-get', ['-o', 'DPkg::Lock::Timeout=300', '-q', ...command.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
