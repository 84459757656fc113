import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The platform of Lambda's x86_64 runtime: the packages copied into layers and bundles must fit it. */
const target = { os: 'linux', cpu: 'x64', libc: 'glibc' } as const;

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
}

const readManifest = (packageDir: string): Manifest =>
  JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Manifest;

/** npm's `os`/`cpu`/`libc` fields: a list of allowed values, or `!value` to exclude one. */
function allows(list: string[] | undefined, value: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const positives = list.filter((entry) => !entry.startsWith('!'));
  return positives.length === 0 || positives.includes(value);
}

const fitsTarget = (manifest: Manifest) =>
  allows(manifest.os, target.os) && allows(manifest.cpu, target.cpu) && allows(manifest.libc, target.libc);

/** Node's own lookup: `node_modules/<name>` in the folder of the dependent, then in each parent. */
function findPackageDir(name: string, fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export interface CopiedPackage {
  name: string;
  version: string;
}

/**
 * Copies packages and everything they need at run time (dependencies, and the optional ones that
 * are installed and fit Lambda's linux-x64 glibc platform, such as sharp's prebuilt binaries) from
 * an installed node_modules into a flat `targetNodeModules`. Two versions of one package fail the
 * copy rather than ship the wrong one.
 */
export function copyPackages(
  names: readonly string[],
  fromDir: string,
  targetNodeModules: string,
): CopiedPackage[] {
  const copied = new Map<string, CopiedPackage>();
  const pending: { name: string; from: string; optional: boolean }[] = names.map((name) => ({
    name,
    from: fromDir,
    optional: false,
  }));
  while (pending.length > 0) {
    const next = pending.shift()!;
    const sourceDir = findPackageDir(next.name, next.from);
    if (!sourceDir) {
      if (next.optional) continue;
      throw new Error(`Package ${next.name} is not installed (needed from ${next.from}); run npm ci`);
    }
    const manifest = readManifest(sourceDir);
    if (!fitsTarget(manifest)) continue;
    const seen = copied.get(manifest.name);
    if (seen) {
      if (seen.version !== manifest.version) {
        throw new Error(`${manifest.name} is needed in two versions (${seen.version}, ${manifest.version})`);
      }
      continue;
    }
    copied.set(manifest.name, { name: manifest.name, version: manifest.version });
    const destination = join(targetNodeModules, manifest.name);
    mkdirSync(dirname(destination), { recursive: true });
    // Nested node_modules are left out: their packages are copied flat as dependencies instead.
    cpSync(sourceDir, destination, {
      recursive: true,
      filter: (path) => !relative(sourceDir, path).split(sep).includes('node_modules'),
    });
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      pending.push({ name: dependency, from: sourceDir, optional: false });
    }
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) {
      pending.push({ name: dependency, from: sourceDir, optional: true });
    }
  }
  return [...copied.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Bytes of all files under `dir`, as Lambda counts a layer or function unzipped. */
export function directorySize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directorySize(path);
    else total += statSync(path).size;
  }
  return total;
}
