import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { shippedLanguages } from '../../shared/ocr/limits.ts';
import {
  type BuiltLayer,
  buildLayer,
  defaultLayersDir,
  isMain,
  type LayerRecipe,
  megabytes,
} from '../layer.ts';

/**
 * Debian 12's Tesseract for Lambda, copied from the packages `npm run system-tools` installs:
 * the binary, every shared library it links (glibc and its loader included: Lambda's Amazon
 * Linux 2023 has glibc 2.34, Debian's libraries ask for 2.36), and the language data /ocr ships
 * (Debian's tesseract-ocr-<lang> packages: tessdata_fast models) with osd for orientation, the
 * configs and the glyphless font of the PDF renderer. Under tesseract/, so /opt/tesseract on
 * Lambda, where shared/ocr/config.ts starts the binary through the layer's own loader.
 * More languages: OCR_LANGUAGES at build time (their tesseract-ocr-<lang> packages installed).
 */

const systemBinary = '/usr/bin/tesseract';
const loaderName = 'ld-linux-x86-64.so.2';

/** The languages the layer carries: the shipped ones, the configured ones, and osd. */
export const layerLanguages = (): string[] => [
  ...new Set([
    ...shippedLanguages,
    ...(process.env.OCR_LANGUAGES ?? '')
      .split(',')
      .map((code) => code.trim())
      .filter((code) => code !== ''),
    'osd',
  ]),
];

const run = (command: string, args: string[], env?: NodeJS.ProcessEnv) =>
  execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });

/** The installed version of each Debian package the layer copies. */
function packageVersions(): Record<string, string> {
  const names = [
    'tesseract-ocr',
    'libtesseract5',
    'liblept5',
    'libc6',
    ...layerLanguages().map((l) => `tesseract-ocr-${l.replaceAll('_', '-')}`),
  ];
  const versions: Record<string, string> = {};
  for (const name of names) {
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
      versions[name] = run('dpkg-query', ['-W', '-f', '${Version}', name]);
    } catch {
      throw new Error(`Debian package ${name} is not installed: run npm run system-tools first`);
    }
  }
  return versions;
}

/** The shared libraries `ldd` resolves for the binary, by the name it asks for, and the loader. */
export function linkedLibraries(binary: string): Array<{ name: string; path: string }> {
  const libraries: Array<{ name: string; path: string }> = [];
  for (const line of run('ldd', [binary]).split('\n')) {
    const linked = /^\s*(\S+) => (\/\S+)/.exec(line);
    if (linked) libraries.push({ name: linked[1]!, path: linked[2]! });
    const loader = /^\s*(\/\S*ld-linux[^\s]*)/.exec(line);
    if (loader) libraries.push({ name: loaderName, path: loader[1]! });
  }
  return libraries;
}

/** Tesseract's data folder, as it names it itself. */
function systemTessdata(): string {
  const listed = run(systemBinary, ['--list-langs']);
  const dir = /"([^"]+)"/.exec(listed)?.[1];
  if (!dir) throw new Error(`tesseract --list-langs named no data folder: ${listed}`);
  return dir;
}

export const tesseractLayer: LayerRecipe = {
  name: 'tesseract',
  inputs: () => ({ recipe: '1', ...packageVersions() }),
  populate(dir) {
    const root = join(dir, 'tesseract');
    for (const sub of ['bin', 'lib', 'tessdata']) mkdirSync(join(root, sub), { recursive: true });
    copyFileSync(systemBinary, join(root, 'bin', 'tesseract'));
    chmodSync(join(root, 'bin', 'tesseract'), 0o755);
    for (const library of linkedLibraries(systemBinary)) {
      const target = join(root, 'lib', library.name);
      copyFileSync(realpathSync(library.path), target);
      chmodSync(target, 0o755);
    }
    const tessdata = systemTessdata();
    for (const language of layerLanguages()) {
      const file = join(tessdata, `${language}.traineddata`);
      if (!existsSync(file)) throw new Error(`no ${file}: install tesseract-ocr-${language}`);
      copyFileSync(file, join(root, 'tessdata', basename(file)));
    }
    copyFileSync(join(tessdata, 'pdf.ttf'), join(root, 'tessdata', 'pdf.ttf'));
    cpSync(join(tessdata, 'configs'), join(root, 'tessdata', 'configs'), { recursive: true });
    // The copy must run on its own: its loader, its libraries, its data, nothing of this machine's.
    const version = run(
      join(root, 'lib', loaderName),
      ['--library-path', join(root, 'lib'), join(root, 'bin', 'tesseract'), '--list-langs'],
      { TESSDATA_PREFIX: join(root, 'tessdata') },
    );
    for (const language of layerLanguages()) {
      if (!version.split('\n').includes(language))
        throw new Error(`the layer's tesseract does not list ${language}`);
    }
  },
};

export const buildTesseractLayer = (outRoot = defaultLayersDir): BuiltLayer =>
  buildLayer(tesseractLayer, outRoot);

if (isMain(import.meta.url)) {
  const layer = buildTesseractLayer(process.argv[2]);
  console.log(`${layer.name} layer: ${layer.dir}, ${megabytes(layer.sizeBytes)} unzipped`);
}
