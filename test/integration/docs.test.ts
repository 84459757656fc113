import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, ensureChromium, launchBrowser } from '../support/browser.ts';
import { type RunningGateway, startLocalGateway } from '../support/gateway.ts';

describe('GET /docs in a real browser', () => {
  let gateway: RunningGateway;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    const executablePath = await ensureChromium();
    gateway = await startLocalGateway();
    browser = await launchBrowser(executablePath);
    page = await browser.context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${gateway.url}/docs`);
    await page.waitForSelector('#operations-Text-slugify', { timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('renders every operation of /openapi.yaml from the service itself, nothing from elsewhere', async () => {
    const document = await (await fetch(`${gateway.url}/openapi.yaml`)).text();
    const operationIds = [...document.matchAll(/^ {6}operationId: (\S+)$/gm)].map(([, id]) => id);
    expect(operationIds.length).toBeGreaterThan(4);
    const shown = await page.locator('.opblock').count();
    expect(shown).toBe(operationIds.length);
    expect(requested.filter((url) => !url.startsWith(`${gateway.url}/`))).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${gateway.url}/openapi.yaml`]));
    expect(problems).toEqual([]);
  });

  it('offers the deployment that serves the page as the first server', async () => {
    const first = await page.locator('.servers select option').first().getAttribute('value');
    expect(first).toBe(gateway.url);
  });

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
    expect(problems).toEqual([]);
  });
});
