import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltLayer, lambdaUnzippedLimitBytes } from '../../layers/layer.ts';
import { buildTesseractLayer, layerLanguages } from '../../layers/tesseract/build.ts';
import { renderParagraph, sampleText, wordAccuracy } from '../support/ocr-text.ts';

const run = promisify(execFile);

let outRoot: string;
let layer: BuiltLayer;

beforeAll(() => {
  outRoot = mkdtempSync(join(tmpdir(), 'tesseract-layer-'));
  layer = buildTesseractLayer(outRoot);
}, 60_000);

afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

describe('tesseract layer', () => {
  it('holds the binary, its libraries and the shipped languages in under 100 MiB, room for the function beside it', () => {
    expect(layer.sizeBytes).toBeLessThan(100 * 1024 * 1024);
    expect(lambdaUnzippedLimitBytes - layer.sizeBytes).toBeGreaterThan(150 * 1024 * 1024);
    expect(layerLanguages()).toEqual(['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'nld', 'osd']);
  });

  it('reads text with its own loader, libraries and data, in an empty environment', async () => {
    const root = join(layer.dir, 'tesseract');
    const image = join(outRoot, 'english.png');
    await renderParagraph(sampleText.eng, image);
    const { stdout } = await run(
      join(root, 'lib', 'ld-linux-x86-64.so.2'),
      [
        '--library-path',
        join(root, 'lib'),
        join(root, 'bin', 'tesseract'),
        image,
        '-',
        '-l',
        'eng',
        '--psm',
        '1',
      ],
      { cwd: outRoot, env: { TESSDATA_PREFIX: join(root, 'tessdata'), OMP_THREAD_LIMIT: '1' } },
    );
    expect(wordAccuracy(stdout, sampleText.eng)).toBeGreaterThanOrEqual(0.97);
  });
});
