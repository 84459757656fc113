import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  ensureBuildPackages,
  installedDebianVersion,
  newestDebianVersion,
  unpackedSource,
} from '../debian-source.ts';

/**
 * A static qpdf compiled from Debian 12's qpdf source package, linked against the static zlib and
 * libjpeg of Debian's own packages and glibc, so that it runs on Lambda's Amazon Linux whatever its
 * libraries. Encryption uses qpdf's native crypto provider (its own AES, RC4, MD5 and SHA-2, the
 * reference implementation of PDF encryption): no GnuTLS or OpenSSL is linked in.
 */

/** Debian packages the build needs: the compiler, CMake, the static zlib and libjpeg. */
export const buildPackages = [
  'build-essential',
  'dpkg-dev',
  'cmake',
  'zlib1g-dev',
  'libjpeg62-turbo-dev',
] as const;

export const cmakeFlags: readonly string[] = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DBUILD_STATIC_LIBS=ON',
  '-DREQUIRE_CRYPTO_NATIVE=ON',
  '-DUSE_IMPLICIT_CRYPTO=OFF',
  '-DBUILD_DOC=OFF',
  '-DINSTALL_MANUAL=OFF',
  '-DINSTALL_EXAMPLES=OFF',
  // Only the archives of zlib and libjpeg are found, and the executable is linked with no shared
  // object at all.
  '-DCMAKE_FIND_LIBRARY_SUFFIXES=.a',
  '-DCMAKE_EXE_LINKER_FLAGS=-static',
];

/** What a build is made of; any change rebuilds it. */
export function buildInputs(debianVersion: string): Record<string, string> {
  const flags = createHash('sha256').update(cmakeFlags.join('\n')).digest('hex').slice(0, 16);
  return { debianSource: `qpdf ${debianVersion}`, cmake: flags };
}

/**
 * The Debian version to build: the one of Debian's qpdf package installed here, which makes the
 * tests' fixtures and reads the routes' answers back, so that both are the same release from the
 * same source; without it, the newest in Debian 12 and its security updates.
 */
export const targetDebianVersion = (aptDir: string) =>
  installedDebianVersion('qpdf') ?? newestDebianVersion('qpdf', aptDir);

export interface StaticBuild {
  /** Path of the stripped, statically linked `qpdf`. */
  qpdf: string;
  debianVersion: string;
  inputs: Record<string, string>;
}

/**
 * Builds (or finds, built before from the same inputs) the static qpdf under `cacheRoot`. A
 * finished build is kept with a stamp of its inputs and reused.
 */
export function staticQpdf(cacheRoot: string, debianVersion?: string): StaticBuild {
  const work = join(cacheRoot, 'qpdf-build');
  mkdirSync(work, { recursive: true });
  const version = debianVersion ?? targetDebianVersion(work);
  const inputs = buildInputs(version);
  const dir = join(work, version.replace(/[^\w.+-]/g, '_'));
  const qpdf = join(dir, 'bin', 'qpdf');
  const stamp = join(dir, 'stamp.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(inputs)) {
    return { qpdf, debianVersion: version, inputs };
  }
  ensureBuildPackages('qpdf', buildPackages);
  // The index is refreshed before every download: Debian keeps only the newest files of a release.
  newestDebianVersion('qpdf', work);
  const source = unpackedSource('qpdf', work, dir, version);
  const build = join(dir, 'build');
  const quiet = { stdio: ['ignore', 'ignore', 'inherit'] as ('ignore' | 'inherit')[] };
  execFileSync('cmake', ['-S', source, '-B', build, ...cmakeFlags], quiet);
  execFileSync('cmake', ['--build', build, '--target', 'qpdf', '-j', String(availableParallelism())], quiet);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  execFileSync('strip', ['-o', qpdf, join(build, 'qpdf', 'qpdf')]);
  writeFileSync(stamp, JSON.stringify(inputs));
  return { qpdf, debianVersion: version, inputs };
}
