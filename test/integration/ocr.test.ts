import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { renderParagraph, sampleText, wordAccuracy } from '../support/ocr-text.ts';

/**
 * /ocr through the local gateway over real HTTP, on text set by ImageMagick (a clean English
 * paragraph, the same turned and speckled as a crooked scan, a German paragraph as a PDF), its
 * answers read back as JSON and text, and the searchable PDF by poppler's pdftotext and pdfimages.
 */

const run = promisify(execFile);
const sources = new FixtureServer();
let gateway: RunningGateway;
let dir = '';
const urls: Record<string, string> = {};

const post = (body: unknown, key: string = SHARED_KEYS.enterprise) =>
  postJson(`${gateway.url}/ocr`, body, { 'x-api-key': key });

beforeAll(async () => {
  gateway = sharedGateway();
  await sources.start();
  dir = await mkdtemp(join(tmpdir(), 'ocr-'));
  const path = (name: string) => join(dir, name);
  await Promise.all([
    renderParagraph(sampleText.eng, path('english.png')),
    renderParagraph(sampleText.eng, path('crooked.png'), true),
    renderParagraph(sampleText.deu, path('german.png')),
  ]);
  // Pillow writes the PDFs: the German page at 300 dpi, and six small blank pages.
  await run('/usr/bin/python3', [
    '-c',
    'import sys; from PIL import Image; Image.open(sys.argv[1]).convert("L").save(sys.argv[2], resolution=300)',
    path('german.png'),
    path('german.pdf'),
  ]);
  await run('/usr/bin/python3', [
    '-c',
    'import sys; from PIL import Image; p = [Image.new("L", (100, 100), 255) for _ in range(6)]; p[0].save(sys.argv[1], save_all=True, append_images=p[1:])',
    path('six.pdf'),
  ]);
  for (const [name, type] of [
    ['english.png', 'image/png'],
    ['crooked.png', 'image/png'],
    ['german.pdf', 'application/pdf'],
    ['six.pdf', 'application/pdf'],
  ] as const) {
    urls[name] = sources.serve(`/${name}`, await readFile(path(name)), type);
  }
}, 60_000);

afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('/ocr', () => {
  it('reads a clean 300 dpi English paragraph as JSON, word for word', async () => {
    const response = await post({ sourceUrl: urls['english.png'] });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toContain('english.json');
    const answer = (await response.json()) as {
      text: string;
      pages: Array<{ number: number; text: string; confidence: number }>;
    };
    expect(answer.pages).toHaveLength(1);
    expect(answer.pages[0]).toMatchObject({ number: 1, text: answer.text });
    expect(answer.pages[0]!.confidence).toBeGreaterThan(80);
    expect(wordAccuracy(answer.text, sampleText.eng)).toBeGreaterThanOrEqual(0.97);
  });

  it('reads a slightly turned, noisy scan as plain text', async () => {
    const response = await post({ sourceUrl: urls['crooked.png'], outputFormat: 'txt' });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(wordAccuracy(await response.text(), sampleText.eng)).toBeGreaterThanOrEqual(0.9);
  });

  it('makes a searchable PDF of a German scan: the page image, and its words under it', async () => {
    const response = await post({ sourceUrl: urls['german.pdf'], languages: ['deu'], outputFormat: 'pdf' });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const path = join(dir, 'searchable.pdf');
    await writeFile(path, Buffer.from(await response.arrayBuffer()));
    const { stdout: text } = await run('pdftotext', [path, '-']);
    expect(wordAccuracy(text, sampleText.deu)).toBeGreaterThanOrEqual(0.97);
    const { stdout: images } = await run('pdfimages', ['-list', path]);
    const rows = images.split('\n').filter((line) => /^\s+1\s+\d+\s+image\s/.test(line));
    expect(rows).toHaveLength(1);
    // The page keeps the source's size: 2480 pixels at 300 dpi are 595 points wide.
    const { stdout: info } = await run('pdfinfo', [path]);
    expect(info).toMatch(/Pages:\s+1\n/);
    expect(Number(/Page size:\s+([\d.]+)/.exec(info)?.[1])).toBeCloseTo(595.2, 0);
  });

  it("refuses more pages than the caller's tier reads, naming the tier that reads them", async () => {
    const response = await post({ sourceUrl: urls['six.pdf'] }, SHARED_KEYS.free);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; message: string };
    expect(answer.error).toBe('validation_failed');
    expect(answer.message).toMatch(
      /^pages: 6 pages are more than the 5 a request of the free tier reads\. The pro tier/,
    );
  });

  it('refuses a language that is not offered before downloading anything', async () => {
    const response = await post({ sourceUrl: `${urls['six.pdf']}-never-fetched`, languages: ['eng', 'xyz'] });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; message: string };
    expect(answer.error).toBe('validation_failed');
    expect(answer.message).toContain('languages.1: "xyz" is not offered');
    expect(answer.message).toContain('Offered: eng, deu, fra, spa, ita, por, nld');
  });
});
