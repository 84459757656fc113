import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EncryptedPdfs,
  makeEncryptedPdfs,
  ownerPassword,
  requiresPassword,
  showEncryption,
  userPassword,
} from '../support/encrypted-pdfs.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';

/**
 * /pdf-protect, /pdf-unlock and the `password` of the other PDF routes through the local gateway
 * over real HTTP, on PDFs written by Ghostscript and encrypted by Debian's qpdf (RC4-128, AES-128,
 * AES-256), the answers read back by Debian's qpdf, pdfinfo and pdftotext.
 */
const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
let pdfs: EncryptedPdfs;
let count = 0;
const urls: Record<string, string> = {};

const post = (path: string, body: unknown) =>
  postJson(`${gateway.url}${path}`, body, { 'x-api-key': SHARED_KEYS.enterprise });

async function answerFile(response: Response): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  count += 1;
  const path = join(dir, `answer-${count}.pdf`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

async function errorOf(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: string }).error;
}

beforeAll(async () => {
  gateway = sharedGateway();
  dir = await mkdtemp(join(tmpdir(), 'pdf-crypt-'));
  pdfs = await makeEncryptedPdfs(dir);
  await sources.start();
  for (const key of Object.keys(pdfs) as (keyof EncryptedPdfs)[]) {
    urls[key] = sources.serve(`/${key}.pdf`, await readFile(pdfs[key]));
  }
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('/pdf-protect', () => {
  it('encrypts with AES-256 (R6), the user password and the permissions asked', async () => {
    const path = await answerFile(
      await post('/pdf-protect', {
        sourceUrl: urls.plain,
        ownerPassword: 'the owner',
        userPassword: 'the reader',
        permissions: { print: false, modify: false },
      }),
    );
    expect(await requiresPassword(path)).toBe(0);
    const shown = await showEncryption(path, 'the reader');
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toContain('file encryption method: AESv3');
    expect(shown).toContain('print high resolution: not allowed');
    expect(shown).toContain('modify other: not allowed');
    expect(shown).toContain('modify document assembly: not allowed');
    expect(shown).toContain('extract for any purpose: allowed');
    expect(shown).toContain('modify annotations: allowed');
    expect((await run('pdfinfo', ['-upw', 'the reader', path])).stdout).toMatch(/^Pages:\s+3$/m);
  });

  it('re-protects an encrypted source given its password; without it answers encrypted_pdf', async () => {
    const path = await answerFile(
      await post('/pdf-protect', { sourceUrl: urls.rc4, password: userPassword, ownerPassword: 'new owner' }),
    );
    expect(await requiresPassword(path)).toBe(3);
    expect(await showEncryption(path)).toMatch(/^R = 6$/m);
    expect(await errorOf(await post('/pdf-protect', { sourceUrl: urls.rc4, ownerPassword: 'x' }))).toBe(
      'encrypted_pdf',
    );
  });
});

describe('/pdf-unlock', () => {
  it.each([
    ['RC4-128', 'rc4', userPassword],
    ['AES-128', 'aes128', ownerPassword],
    ['AES-256', 'aes256', userPassword],
  ] as const)('decrypts %s', async (_name, key, password) => {
    const path = await answerFile(await post('/pdf-unlock', { sourceUrl: urls[key], password }));
    expect(await requiresPassword(path)).toBe(2);
    expect((await run('pdftotext', [path, '-'])).stdout).toContain('Secret page 2');
  });

  it('answers invalid_password for a wrong password', async () => {
    expect(await errorOf(await post('/pdf-unlock', { sourceUrl: urls.aes256, password: 'wrong' }))).toBe(
      'invalid_password',
    );
  });
});

describe('`password` on the other PDF routes', () => {
  it('/pdf-info reports the permissions, without a password and with it', async () => {
    const without = await post('/pdf-info', { sourceUrl: urls.ownerOnly });
    expect(without.status).toBe(200);
    expect(await without.json()).toMatchObject({
      encrypted: true,
      permissions: { print: false, copy: false, modify: true, annotate: true, fillForms: true },
    });
    const locked = await post('/pdf-info', { sourceUrl: urls.aes256, password: ownerPassword });
    expect(await locked.json()).toMatchObject({
      encrypted: true,
      pages: 3,
      permissions: { print: true, copy: true },
    });
    const plain = await post('/pdf-info', { sourceUrl: urls.plain });
    expect(await plain.json()).toMatchObject({ encrypted: false, permissions: null });
  });

  it('/pdf-rotate reads an encrypted source with its password (the output is not encrypted), refuses it without', async () => {
    const rotated = await answerFile(
      await post('/pdf-rotate', { sourceUrl: urls.aes256, password: userPassword, angle: 90 }),
    );
    expect(await requiresPassword(rotated)).toBe(2);
    expect((await run('pdfinfo', ['-f', '1', '-l', '1', rotated])).stdout).toMatch(/rot:\s+90/);
    expect((await run('pdftotext', [rotated, '-'])).stdout).toContain('Secret page 1');
    expect(await errorOf(await post('/pdf-rotate', { sourceUrl: urls.aes128, angle: 90 }))).toBe(
      'encrypted_pdf',
    );
    expect(
      await errorOf(await post('/pdf-rotate', { sourceUrl: urls.rc4, password: 'wrong', angle: 90 })),
    ).toBe('invalid_password');
  });

  it('/pdf-merge decrypts each encrypted source with the one password, and names a source it does not open', async () => {
    const merged = await answerFile(
      await post('/pdf-merge', { sources: [urls.plain, urls.aes256, urls.rc4], password: userPassword }),
    );
    expect(await requiresPassword(merged)).toBe(2);
    expect((await run('pdfinfo', [merged])).stdout).toMatch(/^Pages:\s+9$/m);
    const wrong = await post('/pdf-merge', { sources: [urls.plain, urls.ownerOnly], password: userPassword });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: 'invalid_password',
      message: expect.stringMatching(/^sources\.1: /),
    });
  });
});
