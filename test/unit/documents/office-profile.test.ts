import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertOfficeToPdf } from '#shared/documents/office-convert.ts';
import { makeDocx } from '../../support/office-documents.ts';

/**
 * The profile each conversion starts from, with the real LibreOffice: a fresh profile must not
 * make it run the graphics self-test it runs after an upgrade (seconds of CPU on every request).
 * The self-test leaves its log in the profile, which the request's workspace keeps here.
 */
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'office-profile-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the LibreOffice profile', () => {
  it('converts without running the graphics self-test of a first start', async () => {
    const source = join(dir, 'source');
    await writeFile(source, makeDocx('Profile check'));
    const output = await convertOfficeToPdf(source, { format: 'docx' }, { dir, timeoutMs: 60_000 });
    expect(existsSync(output)).toBe(true);
    expect(existsSync(join(dir, 'profile', 'user', 'registrymodifications.xcu'))).toBe(true);
    expect(existsSync(join(dir, 'profile', 'user', 'GraphicsRenderTests.log'))).toBe(false);
  });
});
