import type { Page } from 'puppeteer-core';
import { maxCaptureHeight, type ScreenshotFormat } from '#shared/documents/browser-limits.ts';

export interface CaptureOptions {
  format: ScreenshotFormat;
  fullPage: boolean;
}

/**
 * Captures the loaded page to an image file at `path`: the viewport, or the whole page down to
 * maxCaptureHeight. The page's size is read from the layout, not from a script, so it works with
 * JavaScript off.
 */
export async function capturePage(page: Page, options: CaptureOptions, path: string): Promise<void> {
  const type = options.format === 'jpg' ? 'jpeg' : options.format;
  const quality = type === 'png' ? undefined : 85;
  if (!options.fullPage) {
    await page.screenshot({ path, type, quality, captureBeyondViewport: false });
    return;
  }
  const session = await page.createCDPSession();
  const metrics = await session.send('Page.getLayoutMetrics');
  await session.detach();
  const viewport = page.viewport();
  const width = viewport?.width ?? Math.ceil(metrics.cssContentSize.width);
  const height = Math.min(
    maxCaptureHeight,
    Math.max(viewport?.height ?? 1, Math.ceil(metrics.cssContentSize.height)),
  );
  await page.screenshot({
    path,
    type,
    quality,
    clip: { x: 0, y: 0, width, height },
    captureBeyondViewport: true,
  });
}
