import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, ensureChromium, launchBrowser } from '../support/browser.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { type RunningGateway, startLocalGateway } from '../support/gateway.ts';
import { photo, textPdf, zipEntries } from '../unit/pdf/fixtures.ts';

// A browser on a busy machine: each step is slow, none is timed.
describe('GET /docs in a real browser', { timeout: 180_000 }, () => {
  let gateway: RunningGateway;
  let browser: Browser;
  let page: Page;
  const sources = new FixtureServer();
  const requested: string[] = [];
  const problems: string[] = [];

  const load = async () => {
    await page.goto(`${gateway.url}/docs`);
    await page.waitForSelector('#operations-Text-slugify', { timeout: 60_000 });
  };

  /** The free tier's remaining requests for this client, as a counted API call reports them. */
  const remainingAfterOneCall = async () => {
    const answer = await fetch(`${gateway.url}/status`);
    expect(answer.status).toBe(200);
    return Number(/;r=(\d+);/.exec(answer.headers.get('RateLimit') ?? '')?.[1]);
  };

  beforeAll(async () => {
    const executablePath = await ensureChromium();
    await sources.start();
    sources.serve('/photo.png', await (await photo(96, 64)).png().toBuffer(), 'image/png');
    sources.serve('/three.pdf', Buffer.from(await textPdf({ pages: 3 })), 'application/pdf');
    sources.serve('/two.pdf', Buffer.from(await textPdf({ pages: 2 })), 'application/pdf');
    gateway = await startLocalGateway();
    browser = await launchBrowser(executablePath);
    page = await browser.context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await load();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await sources.stop();
  });

  it('renders every operation of /openapi.yaml from the page and the document alone', async () => {
    // A load of its own, whatever the other tests did with the page before.
    requested.length = 0;
    await load();
    const document = await (await fetch(`${gateway.url}/openapi.yaml`)).text();
    const operationIds = [...document.matchAll(/^ {6}operationId: (\S+)$/gm)].map(([, id]) => id);
    expect(operationIds.length).toBeGreaterThan(4);
    const shown = await page.locator('.opblock').count();
    expect(shown).toBe(operationIds.length);
    // One request for the page and one for the document it reads: Swagger UI is inline.
    expect(requested).toEqual([`${gateway.url}/docs`, `${gateway.url}/openapi.yaml`]);
    expect(problems).toEqual([]);
  });

  it('works on every reload by an anonymous visitor, and costs the API quota nothing', async () => {
    const before = await remainingAfterOneCall();
    for (let reload = 1; reload <= 3; reload += 1) {
      await page.reload();
      await page.waitForSelector('#operations-Text-slugify', { timeout: 60_000 });
      expect(await page.locator('.opblock').count(), `reload ${reload}`).toBeGreaterThan(4);
    }
    // More loads than the free tier's ten requests a minute would allow, all served, and the
    // standing each reports never goes down (it can only go up, as older calls leave the window).
    const standing: number[] = [];
    for (let visit = 0; visit < 4; visit += 1) {
      for (const path of ['/docs', '/openapi.yaml', '/docs/swagger-ui.css']) {
        const answer = await fetch(`${gateway.url}${path}`);
        expect(answer.status, path).toBe(200);
        await answer.arrayBuffer();
        standing.push(Number(/;r=(\d+);/.exec(answer.headers.get('RateLimit') ?? '')?.[1]));
      }
    }
    expect(standing).toEqual([...standing].sort((a, b) => a - b));
    // Only the counted /status calls move the count (and the window may have let the first go).
    expect(await remainingAfterOneCall()).toBeGreaterThanOrEqual(before - 1);
    expect(problems).toEqual([]);
  }, 300_000);

  it('puts the operations first, the conventions folded one click away', async () => {
    await load();
    const conventions = page.locator('.information-container details').first();
    expect(await conventions.getAttribute('open')).toBeNull();
    const first = await page.locator('.opblock').first().boundingBox();
    // Before, 2 400 px of conventions stood above the first operation.
    expect(first?.y).toBeLessThan(800);
    await conventions.locator('summary').click();
    await expect.poll(() => conventions.textContent()).toContain('Source download');
    expect(problems).toEqual([]);
  });

  it('shows a file answer as a file in its example, asked for as */*, with the samples of npm run samples', async () => {
    await load();
    const operation = page.locator('#operations-Image-imageConvert');
    await operation.locator('.opblock-summary').click();
    const ok = operation.locator('.responses-table tr.response[data-code="200"]');
    await expect.poll(() => ok.textContent()).toContain('The file itself');
    expect(await ok.locator('.model-example .microlight').first().textContent()).not.toBe('string');
    const accept = operation.locator('.response-control-media-type select').first();
    expect(await accept.inputValue()).toBe('*/*');
    // Served on loopback, the example's source is the sample server's photo, not a public host.
    const body = operation.locator('.body-param textarea');
    await expect.poll(() => body.inputValue()).toContain('http://127.0.0.1:3001/photo.jpg');
    await operation.locator('.opblock-summary').click();
    expect(problems).toEqual([]);
  });

  it('offers the deployment that serves the page as the first server', async () => {
    const first = await page.locator('.servers select option').first().getAttribute('value');
    expect(first).toBe(gateway.url);
  });

  /**
   * Runs an operation from "Try it out" with `body` and gives back the answer the service sent: the
   * page's request is passed to the gateway from here and its bytes kept on the way back.
   */
  async function tryIt(operation: Locator, path: string, body: unknown) {
    let sent: { status: number; headers: Record<string, string>; bytes: Buffer; accept: string } | undefined;
    await page.route(`${gateway.url}${path}`, async (route) => {
      const response = await route.fetch();
      const accept = route.request().headers().accept ?? '';
      sent = { status: response.status(), headers: response.headers(), bytes: await response.body(), accept };
      await route.fulfill({ response });
    });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.body-param textarea').fill(JSON.stringify(body));
    const answered = page.waitForResponse((response) => response.url() === `${gateway.url}${path}`);
    await operation.locator('button.execute').click();
    await answered;
    await page.unroute(`${gateway.url}${path}`);
    if (!sent) throw new Error(`no answer to ${path}`);
    expect(sent.status, sent.bytes.toString('utf8', 0, 300)).toBe(200);
    return sent;
  }

  /** Clicks the answer's download link and reads the file the browser saved. */
  async function download(operation: Locator) {
    const link = operation.locator('a.file-answer-download');
    await link.waitFor({ timeout: 60_000 });
    const saving = page.waitForEvent('download');
    await link.click();
    const saved = await saving;
    const path = await saved.path();
    return { name: saved.suggestedFilename(), bytes: await readFile(path) };
  }

  const named = (headers: Record<string, string>) =>
    /filename="([^"]+)"/.exec(headers['content-disposition'] ?? '')?.[1];

  it('runs POST /slugify from "Try it out" and shows the answer', async () => {
    const operation = page.locator('#operations-Text-slugify');
    await operation.locator('.opblock-summary').click();
    const body = operation.locator('.body-param textarea');
    await expect.poll(() => body.inputValue()).toContain('Héllo Wörld!');
    await body.fill('{"text": "Ærøskøbing Straße, zum 2. Mal!"}');

    const answered = page.waitForResponse((response) => response.url() === `${gateway.url}/slugify`);
    await operation.locator('button.execute').click();
    const response = await answered;
    expect(response.status()).toBe(200);

    const shown = operation.locator('.live-responses-table .response-col_description .microlight').first();
    await expect.poll(() => shown.textContent()).toContain('"slug": "aeroskobing-strasse-zum-2-mal"');
    expect(
      await operation.locator('.live-responses-table tr.response .response-col_status').first().textContent(),
    ).toContain('200');
    expect(await operation.locator('a.file-answer-download').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows an /image-convert answer as an image and downloads it byte for byte under its name', async () => {
    const operation = page.locator('#operations-Image-imageConvert');
    const sent = await tryIt(operation, '/image-convert', {
      sourceUrl: sources.url('/photo.png'),
      outputFormat: 'webp',
    });
    expect(sent.headers['content-type']).toBe('image/webp');
    // Asked for as any file: before, the page (and its curl) sent accept: image/jpeg for a webp.
    expect(sent.accept).toBe('*/*');
    expect(await operation.locator('.curl-command').textContent()).toContain('accept: */*');
    const shown = operation.locator('img.file-answer-preview');
    await expect.poll(() => shown.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(96);
    const saved = await download(operation);
    expect(saved.name).toBe(named(sent.headers));
    expect(saved.name).toMatch(/\.webp$/);
    expect(saved.bytes.equals(sent.bytes)).toBe(true);
    expect(problems).toEqual([]);
  });

  it('downloads a several-page /pdf-to-image answer as the very ZIP the service sent', async () => {
    const operation = page.locator('#operations-PDF-pdfToImage');
    const sent = await tryIt(operation, '/pdf-to-image', {
      sourceUrl: sources.url('/three.pdf'),
      outputFormat: 'png',
      dpi: 36,
    });
    expect(sent.headers['content-type']).toBe('application/zip');
    const saved = await download(operation);
    expect(saved.name).toBe(named(sent.headers));
    expect(saved.name).toMatch(/\.zip$/);
    expect(saved.bytes.equals(sent.bytes)).toBe(true);
    expect(zipEntries(saved.bytes)).toHaveLength(3);
    expect(await operation.locator('.file-answer').textContent()).not.toContain('Unrecognized');
  });

  it('downloads a /pdf-merge answer as the very PDF the service sent', async () => {
    const operation = page.locator('#operations-PDF-pdfMerge');
    const sent = await tryIt(operation, '/pdf-merge', {
      sources: [sources.url('/three.pdf'), sources.url('/two.pdf')],
    });
    expect(sent.headers['content-type']).toBe('application/pdf');
    const saved = await download(operation);
    expect(saved.name).toBe(named(sent.headers));
    expect(saved.name).toMatch(/\.pdf$/);
    expect(saved.bytes.equals(sent.bytes)).toBe(true);
    expect(saved.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(problems).toEqual([]);
  });
});
