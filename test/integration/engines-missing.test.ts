import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import { makeDocx } from '../support/office-documents.ts';
import { referenceFfmpeg } from '../support/reference-tools.ts';

/**
 * A machine without ffmpeg, Chromium or LibreOffice, made by pointing the gateway at binaries that
 * do not exist (the variables a user would set): `npm start` names what is missing and how to get
 * it, /status shows each as unavailable, and each route that needs one answers 503
 * engine_unavailable naming it, never 500 or 502.
 */
describe('engines that are missing', () => {
  let gateway: RunningGateway;
  let fixtures: FixtureServer;
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'engines-missing-'));
    const wav = join(folder, 'tone.wav');
    await promisify(execFile)(referenceFfmpeg, [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5'],
      wav,
    ]);
    fixtures = await new FixtureServer().start();
    fixtures.serve('/tone.wav', await readFile(wav), 'audio/wav');
    fixtures.serve('/report.docx', makeDocx('Quarterly report'));
    gateway = await startLocalGateway({
      FFMPEG_PATH: '/nonexistent/ffmpeg',
      FFPROBE_PATH: '/nonexistent/ffprobe',
      OFFICE_BINARY: '/nonexistent/soffice',
      CHROMIUM_EXECUTABLE: '/nonexistent/chromium',
      SOURCE_ALLOW_PRIVATE: 'true',
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fixtures?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('npm start names each missing engine, the routes it stops and how to get it', () => {
    const output = gateway.output();
    expect(output).toMatch(
      /ffmpeg is missing: the audio and video routes will answer 503 engine_unavailable\. To get it: npm run system-tools/,
    );
    expect(output).toMatch(/Chromium is missing: .* To get it: npm run layer:chromium/);
    expect(output).toMatch(/LibreOffice is missing: the \/office-to-pdf will answer 503/);
  });

  it('/status shows them as unavailable, and the others with their versions', async () => {
    const { engines } = (await (await fetch(`${gateway.url}/status`)).json()) as {
      engines: Record<string, string>;
    };
    expect(engines).toMatchObject({
      ffmpeg: 'unavailable',
      chromium: 'unavailable',
      libreoffice: 'unavailable',
    });
    expect(engines.sharp).toMatch(/^\d+\.\d+/);
    expect(engines.pdfium).toMatch(/^\d+\.\d+/);
  });

  it.each([
    ['/office-to-pdf', 'LibreOffice', () => ({ sourceUrl: fixtures.url('/report.docx') })],
    ['/audio-convert', 'ffmpeg', () => ({ sourceUrl: fixtures.url('/tone.wav'), outputFormat: 'mp3' })],
    ['/html-to-pdf', 'Chromium', () => ({ html: '<h1>Invoice</h1>' })],
  ])('%s answers 503 engine_unavailable naming %s', async (path, engine, body) => {
    const answer = await postJson(`${gateway.url}${path}`, body());
    expect(answer.status).toBe(503);
    const error = (await answer.json()) as { error: string; message: string };
    expect(error.error).toBe('engine_unavailable');
    expect(error.message).toMatch(new RegExp(`^${engine} is not available on this server`));
    expect(error.message).not.toMatch(/nonexistent/);
  });
});
