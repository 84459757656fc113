import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { directorySize } from './copy-packages.ts';

export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where built layers go (git-ignored); the CDK stack zips each folder as one layer version. */
export const defaultLayersDir = join(projectRoot, '.layers');

/** Lambda's limit on a function plus all its layers, unzipped. */
export const lambdaUnzippedLimitBytes = 250 * 1024 * 1024;

export interface LayerRecipe {
  name: string;
  /** What the layer is made of (package versions, recipe revision): any change rebuilds it. */
  inputs(): Record<string, string>;
  /** Fills an empty folder with the layer's content, laid out as it appears under /opt. */
  populate(dir: string): void;
}

export interface BuiltLayer {
  name: string;
  /** The layer's content folder: its children appear under /opt. */
  dir: string;
  sizeBytes: number;
  inputs: Record<string, string>;
  rebuilt: boolean;
}

interface Stamp {
  inputs: Record<string, string>;
  sizeBytes: number;
}

const sameInputs = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

function readStamp(path: string): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

/**
 * Builds a layer into `<outRoot>/<name>` unless an up-to-date build is there already. The content
 * is assembled in a scratch folder and moved into place, so a reader never sees half a layer.
 */
export function buildLayer(recipe: LayerRecipe, outRoot: string = defaultLayersDir): BuiltLayer {
  const dir = join(outRoot, recipe.name);
  const stampPath = join(outRoot, `${recipe.name}.stamp.json`);
  const inputs = recipe.inputs();
  const stamp = readStamp(stampPath);
  if (stamp && existsSync(dir) && sameInputs(stamp.inputs, inputs)) {
    return { name: recipe.name, dir, sizeBytes: stamp.sizeBytes, inputs, rebuilt: false };
  }

  mkdirSync(outRoot, { recursive: true });
  const scratch = join(outRoot, `.${recipe.name}.${process.pid}.${Date.now()}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    recipe.populate(scratch);
    const sizeBytes = directorySize(scratch);
    // Another build (a parallel synth or test) may have finished meanwhile: keep its result
    // rather than pull the folder from under a reader.
    const finished = readStamp(stampPath);
    if (finished && existsSync(dir) && sameInputs(finished.inputs, inputs)) {
      return { name: recipe.name, dir, sizeBytes: finished.sizeBytes, inputs, rebuilt: false };
    }
    // The old layer is moved aside and the new one renamed into place: two renames, so a reader
    // finds either whole layer, never a half-deleted or half-copied one; the old one goes last.
    const previous = `${scratch}.previous`;
    if (existsSync(dir)) renameSync(dir, previous);
    renameSync(scratch, dir);
    writeFileSync(
      `${stampPath}.${process.pid}`,
      `${JSON.stringify({ inputs, sizeBytes } satisfies Stamp, null, 2)}\n`,
    );
    renameSync(`${stampPath}.${process.pid}`, stampPath);
    rmSync(previous, { recursive: true, force: true });
    return { name: recipe.name, dir, sizeBytes, inputs, rebuilt: true };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The installed version of a package, read from node_modules. */
export function installedVersion(name: string): string {
  const manifest = JSON.parse(
    readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8'),
  ) as {
    version: string;
  };
  return manifest.version;
}

export const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** True when the module is the script node was started with (`node layers/<name>/build.ts`). */
export const isMain = (moduleUrl: string) =>
  process.argv[1] !== undefined && fileURLToPath(moduleUrl) === process.argv[1];
