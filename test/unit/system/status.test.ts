import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  engineVersions,
  ffmpegVersion,
  libreofficeVersion,
  parseChromiumVersion,
  parseFfmpegVersion,
  parseOfficeVersion,
} from '#functions/status/engines.ts';
import { handler } from '#functions/status/handler.ts';
import { statusView } from '#shared/routes/system.ts';
import { tiers } from '#shared/tiers.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const getStatus = (tier: 'free' | 'pro' | 'enterprise', requestsPerMinute: number) => {
  const event = apiEvent(undefined, { method: 'GET', path: '/status', tier });
  (event.requestContext.authorizer as Record<string, unknown>).requestsPerMinute = requestsPerMinute;
  return call(handler, event);
};

describe('GET /status', () => {
  it("answers ok with the caller's tier, its limits and the engines this function runs", async () => {
    const answer = await getStatus('pro', 100);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
    const status = statusView.strict().parse(answer.json());
    expect(status).toMatchObject({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      tier: 'pro',
      limits: { requestsPerMinute: 100, maxSourceBytes: tiers.pro.maxSourceBytes, maxMediaSeconds: 30 * 60 },
    });
    expect(Math.abs(Date.parse(status.time) - Date.now())).toBeLessThan(60_000);
    expect(status.engines).toEqual({
      sharp: expect.stringMatching(/^\d+\.\d+\.\d+/),
      libvips: expect.stringMatching(/^\d+\.\d+\.\d+/),
      ffmpeg: expect.stringMatching(/\S/),
      pdfium: expect.stringMatching(/^\d+\.\d+\.\d+/),
      chromium: expect.stringMatching(/^\d+\.\d+\.\d+/),
      libreoffice: expect.stringMatching(/^\d+\.\d+\.\d+/),
      tesseract: expect.stringMatching(/^\d+\.\d+\.\d+/),
      node: process.versions.node,
    });
  });

  it('serves the free tier to a caller without a key, an enterprise key its own rate', async () => {
    expect((await getStatus('free', 10)).json()).toMatchObject({
      tier: 'free',
      limits: { requestsPerMinute: 10, maxSourceBytes: 20_000_000, maxMediaSeconds: 120 },
    });
    expect((await getStatus('enterprise', 2500)).json()).toMatchObject({
      tier: 'enterprise',
      limits: { requestsPerMinute: 2500, maxSourceBytes: 1_000_000_000, maxMediaSeconds: 3600 },
    });
  });

  it('reads the engine versions once per container', () => {
    expect(engineVersions()).toBe(engineVersions());
  });
});

describe('the ffmpeg version', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'fake-ffmpeg-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const fakeBinary = async (name: string, script: string) => {
    const path = join(folder, name);
    await writeFile(path, `#!/bin/sh\n${script}\n`);
    await chmod(path, 0o755);
    return path;
  };

  it.each([
    ['ffmpeg version 7.1.1 Copyright (c) 2000-2025 the FFmpeg developers\nbuilt with gcc', '7.1.1'],
    [
      'ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/',
      'N-47683-g0e8eb07980-static',
    ],
    ['ffmpeg version n7.0-2-gabcdef\n', 'n7.0-2-gabcdef'],
    ['something else entirely', null],
  ])('reads %j as %j', (output, version) => {
    expect(parseFfmpegVersion(output)).toBe(version);
  });

  it('runs the binary with -version', async () => {
    const binary = await fakeBinary(
      'answers',
      '[ "$1" = "-version" ] && echo "ffmpeg version 6.1.2 Copyright"',
    );
    expect(await ffmpegVersion(binary)).toBe('6.1.2');
  });

  it('is null for a missing binary, a failing one, and one that does not answer in time', async () => {
    expect(await ffmpegVersion(join(folder, 'missing'))).toBeNull();
    expect(await ffmpegVersion(await fakeBinary('fails', 'exit 3'))).toBeNull();
    const started = performance.now();
    expect(await ffmpegVersion(await fakeBinary('hangs', 'exec sleep 600'), 300)).toBeNull();
    // Only the 300 ms deadline can end a ten-minute sleep this side of 30 s, however slow the machine.
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

describe('the LibreOffice and Chromium versions', () => {
  it('reads them from what the binaries print', () => {
    expect(parseOfficeVersion('LibreOffice 7.4.7.2 40(Build:2)\n')).toBe('7.4.7.2');
    expect(parseChromiumVersion('Chromium 150.0.7871.100 built on Debian GNU/Linux 12 (bookworm)')).toBe(
      '150.0.7871.100',
    );
    expect(parseChromiumVersion('HeadlessChrome/131.0.6778.204')).toBe('131.0.6778.204');
    expect(parseOfficeVersion('something else')).toBeNull();
  });

  it('is null for a LibreOffice that is not there', async () => {
    expect(await libreofficeVersion('/nonexistent/soffice')).toBeNull();
  });
});
