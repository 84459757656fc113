import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { type ExternalEngine, externalEngines } from '#shared/engines.ts';

const require = createRequire(import.meta.url);

/** True when `binary` (a path, or a name looked up on PATH) is an executable file. */
export async function isExecutable(binary: string, path = process.env.PATH ?? ''): Promise<boolean> {
  const candidates = binary.includes('/') ? [binary] : path.split(delimiter).map((dir) => join(dir, binary));
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Where each engine is expected, as the functions will look for it (env, layer, system). */
async function isPresent(engine: ExternalEngine): Promise<boolean> {
  if (engine === 'ffmpeg') {
    const { ffmpegPath, ffprobePath } = await import('#shared/media/binaries.ts');
    return (await isExecutable(ffmpegPath)) && (await isExecutable(ffprobePath));
  }
  if (engine === 'qpdf') {
    const { qpdfPath } = await import('#shared/pdf/qpdf.ts');
    return isExecutable(qpdfPath);
  }
  if (engine === 'fonts') {
    const { fontsPresent } = await import('#shared/pdf/fonts.ts');
    return fontsPresent();
  }
  if (engine === 'tesseract') {
    const { ocrConfig } = await import('#shared/ocr/config.ts');
    return isExecutable(ocrConfig.command.file);
  }
  if (engine === 'libreoffice') {
    const { officeBinary } = await import('#shared/documents/office-convert.ts');
    return isExecutable(officeBinary);
  }
  const { documentsConfig } = await import('#shared/documents/config.ts');
  if (documentsConfig.CHROMIUM_EXECUTABLE !== undefined)
    return isExecutable(documentsConfig.CHROMIUM_EXECUTABLE);
  const packDir =
    documentsConfig.CHROMIUM_PACK_DIR ??
    join(dirname(require.resolve('@sparticuz/chromium/package.json')), 'bin');
  return access(join(packDir, 'chromium.br')).then(
    () => true,
    () => false,
  );
}

/**
 * What `npm start` says about engines that are not there: one line each, naming the routes that
 * will answer 503 engine_unavailable and how to get it. Only presence is checked here, which is
 * cheap; GET /status runs each engine and shows a broken one as unavailable too.
 */
export async function missingEngineLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const engine of Object.keys(externalEngines) as ExternalEngine[]) {
    if (await isPresent(engine)) continue;
    const { label, routes, howToGet } = externalEngines[engine];
    lines.push(
      `${label} is missing: the ${routes} will answer 503 engine_unavailable. To get it: ${howToGet}.`,
    );
  }
  return lines;
}
