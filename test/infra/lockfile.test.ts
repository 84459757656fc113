import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../layers/layer.ts';

interface LockEntry {
  version?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/**
 * Where Node would find `name` for the package installed at `from`: its own node_modules, then
 * each enclosing one up to the root, the way npm lays the tree out in the lock file.
 */
function resolveInLock(packages: Lock['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent >= 0 ? base.slice(0, parent) : '';
  }
}

/**
 * Every dependency, optional ones included, that a locked package names without an entry of its
 * own. `npm ci` refuses such a lock ("Missing: … from lock file") on every platform, even where
 * the missing package is one it would skip, such as another platform's native build.
 */
function missingFromLock(lock: Lock): string[] {
  const missing: string[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    const wanted = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const name of Object.keys(wanted)) {
      if (!resolveInLock(lock.packages, at, name))
        missing.push(`${at || '(root)'} → ${name}@${wanted[name]}`);
    }
  }
  return missing;
}

const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as Lock;
const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('package-lock.json is whole, so npm ci works on every platform npm supports', () => {
  it('has an entry for every dependency and every optional platform package a locked package names', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(missingFromLock(lock)).toEqual([]);
  });

  it('locks what package.json asks for', () => {
    const root = lock.packages[''] as LockEntry & { devDependencies?: Record<string, string> };
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
  });

  it('records the native builds of other platforms too (bcrypt, argon2, sharp, esbuild, biome)', () => {
    for (const name of [
      '@node-rs/bcrypt-darwin-arm64',
      '@node-rs/bcrypt-win32-x64-msvc',
      '@node-rs/argon2-darwin-arm64',
      '@img/sharp-darwin-arm64',
      '@esbuild/darwin-arm64',
      '@biomejs/cli-win32-x64',
    ]) {
      expect(
        Object.keys(lock.packages).some((at) => at.endsWith(`node_modules/${name}`)),
        name,
      ).toBe(true);
    }
  });

  it('finds a platform package that is named but not locked (the failure npm ci reports)', () => {
    const broken: Lock = {
      lockfileVersion: 3,
      packages: {
        '': { dependencies: { native: '^1.0.0' } },
        'node_modules/native': {
          version: '1.0.0',
          optionalDependencies: { 'native-linux-x64-gnu': '1.0.0', 'native-darwin-arm64': '1.0.0' },
        },
        'node_modules/native-linux-x64-gnu': { version: '1.0.0' },
      },
    };
    expect(missingFromLock(broken)).toEqual(['node_modules/native → native-darwin-arm64@1.0.0']);
  });
});
