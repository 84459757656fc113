import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltLayer } from '../../layers/layer.ts';
import { buildQpdfLayer } from '../../layers/qpdf/build.ts';
import { referenceQpdf } from '../support/reference-tools.ts';

/**
 * The qpdf layer's own binary (compiled statically from Debian's source package) runs with no
 * library of this machine, as in Lambda, and encrypts what Debian's qpdf reads back.
 */
const run = promisify(execFile);
let layer: BuiltLayer;
let out: string;
const qpdf = () => join(layer.dir, 'bin', 'qpdf');

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'qpdf-layer-'));
  layer = buildQpdfLayer(join(out, 'layers'));
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the qpdf layer', () => {
  it('is the release of Debian’s qpdf package, statically linked, with its native crypto only', async () => {
    const { stdout } = await run(qpdf(), ['--version'], { env: {} });
    const release = /^qpdf version (\d+\.\d+\.\d+)$/m.exec(stdout)?.[1];
    expect(layer.inputs.debianSource).toContain(`qpdf ${release}-`);
    expect((await run(referenceQpdf, ['--version'])).stdout).toContain(`qpdf version ${release}`);
    expect((await run('file', [qpdf()])).stdout).toContain('statically linked');
    expect((await run(qpdf(), ['--show-crypto'], { env: {} })).stdout.trim()).toBe('native');
  });

  it('encrypts with AES-256 what Debian’s qpdf reads back, and decrypts it again', async () => {
    const [encrypted, decrypted] = [join(out, 'e.pdf'), join(out, 'd.pdf')];
    await run(qpdf(), ['--empty', '--encrypt', 'u', 'o', '256', '--print=none', '--', encrypted], {
      env: {},
    });
    const shown = (await run(referenceQpdf, ['--password=u', '--show-encryption', encrypted])).stdout;
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toContain('print high resolution: not allowed');
    await run(qpdf(), ['--password=o', '--decrypt', encrypted, decrypted], { env: {} });
    expect((await run(referenceQpdf, ['--show-encryption', decrypted])).stdout).toContain(
      'File is not encrypted',
    );
  });
});
