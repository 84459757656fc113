import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { findTool, toolVersion } from './processes.ts';
import type { BenchOptions } from './report.ts';
import type { RunningService, SourceServer } from './service.ts';

/** The alternatives a user might pick instead; any of them may be missing. */
export interface Tools {
  /** ImageMagick: `magick` (7) or `convert` (6). */
  imagemagick?: string;
  pdftoppm?: string;
  qpdf?: string;
  ghostscript?: string;
}

export async function findTools(): Promise<Tools> {
  const found = {
    imagemagick: await findTool('magick', 'convert'),
    pdftoppm: await findTool('pdftoppm'),
    qpdf: await findTool('qpdf'),
    ghostscript: await findTool('gs'),
  };
  return Object.fromEntries(Object.entries(found).filter(([, path]) => path !== undefined)) as Tools;
}

/** One line per tool: its version, or that it is missing. */
export async function describeTools(tools: Tools): Promise<Record<keyof Tools, string>> {
  const version = async (path: string | undefined, args: string[], pattern: RegExp) => {
    if (!path) return 'not installed';
    const line = await toolVersion(path, args).catch(() => '');
    return pattern.exec(line)?.[1] ?? (line || 'unknown version');
  };
  return {
    imagemagick: await version(tools.imagemagick, ['-version'], /ImageMagick (\S+)/),
    pdftoppm: await version(tools.pdftoppm, ['-v'], /version (\S+)/),
    qpdf: await version(tools.qpdf, ['--version'], /version (\S+)/),
    ghostscript: await version(tools.ghostscript, ['--version'], /^(\S+)/),
  };
}

export interface BenchContext extends BenchOptions {
  service: RunningService;
  sources: SourceServer;
  tools: Tools;
}

export const workFile = (context: Pick<BenchOptions, 'workDir'>, name: string) => join(context.workDir, name);

export const sizeOf = async (path: string) => (await stat(path)).size;
