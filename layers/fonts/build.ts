import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  type BuiltLayer,
  buildLayer,
  defaultLayersDir,
  isMain,
  type LayerRecipe,
  megabytes,
} from '../layer.ts';

/**
 * The fonts pages are set in, from Debian 12's packages: Liberation (metric-compatible with Arial,
 * Times New Roman and Courier New; Latin, Greek, Cyrillic), Noto Sans and Serif for what Liberation
 * lacks, and Noto Sans CJK for Chinese, Japanese and Korean. Lambda's image has no fonts of its own
 * (the packed Chromium brings only Open Sans). The layer holds them under fonts/, with a fontconfig
 * file for /opt/fonts; the local gateway uses the same files through local.conf beside the layer.
 */
const packages = {
  'fonts-liberation2': /^Liberation(Sans|Serif|Mono)-.*\.ttf$/,
  'fonts-noto-core': /^Noto(Sans|Serif)-(Regular|Bold|Italic|BoldItalic)\.ttf$/,
  'fonts-noto-cjk': /^NotoSansCJK-(Regular|Bold)\.ttc$/,
} as const;

/** Where the fonts are on Lambda: the layer's fonts/ folder appears under /opt. */
export const lambdaFontsDir = '/opt/fonts';
export const lambdaFontconfigFile = `${lambdaFontsDir}/fonts.conf`;

/** A fontconfig file that knows only the given folder (no system fonts), caching under /tmp. */
export function fontconfig(dir: string): string {
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${dir}</dir>
  <cachedir>/tmp/fontconfig-cache</cachedir>
  <alias><family>sans-serif</family><prefer><family>Liberation Sans</family><family>Noto Sans</family><family>Noto Sans CJK SC</family></prefer></alias>
  <alias><family>serif</family><prefer><family>Liberation Serif</family><family>Noto Serif</family><family>Noto Sans CJK SC</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>Liberation Mono</family><family>Noto Sans CJK SC</family></prefer></alias>
</fontconfig>
`;
}

const run = (command: string, args: string[], cwd?: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

/** The candidate version apt would install of each package, e.g. `2.1.5-1`. */
function candidateVersions(): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const name of Object.keys(packages)) {
    const shown = run('apt-cache', ['policy', name]);
    const found = /Candidate: (\S+)/.exec(shown)?.[1];
    if (!found || found === '(none)') throw new Error(`apt knows no ${name}: run apt-get update first`);
    versions[name] = found;
  }
  return versions;
}

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

export const fontsLayer: LayerRecipe = {
  name: 'fonts',
  inputs: () => ({ recipe: '1', ...candidateVersions() }),
  populate(dir) {
    const work = mkdtempSync(join(tmpdir(), 'fonts-layer-'));
    try {
      const fonts = join(dir, 'fonts');
      mkdirSync(fonts, { recursive: true });
      for (const [name, wanted] of Object.entries(packages)) {
        run('apt-get', ['-o', 'APT::Sandbox::User=root', 'download', '-q', name], work);
        const deb = readdirSync(work).find((file) => file.startsWith(`${name}_`) && file.endsWith('.deb'));
        if (!deb) throw new Error(`apt-get download ${name} left no .deb`);
        const unpacked = join(work, name);
        run('dpkg-deb', ['-x', join(work, deb), unpacked]);
        let copied = 0;
        for (const file of filesUnder(unpacked)) {
          if (!wanted.test(basename(file))) continue;
          copyFileSync(file, join(fonts, basename(file)));
          copied += 1;
        }
        if (copied === 0) throw new Error(`${name} holds no font matching ${wanted}`);
      }
      writeFileSync(join(fonts, 'fonts.conf'), fontconfig(lambdaFontsDir));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};

/** The fontconfig file for this machine: the built layer's fonts, at the path they have here. */
export const localFontconfigFile = (outRoot = defaultLayersDir) => join(outRoot, 'fonts.local.conf');

export function buildFontsLayer(outRoot = defaultLayersDir): BuiltLayer {
  const layer = buildLayer(fontsLayer, outRoot);
  const local = localFontconfigFile(outRoot);
  if (layer.rebuilt || !existsSync(local)) writeFileSync(local, fontconfig(join(layer.dir, 'fonts')));
  return layer;
}

if (isMain(import.meta.url)) {
  const layer = buildFontsLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
  console.log(`local fontconfig: ${localFontconfigFile(process.argv[2])}`);
}
