/** The browser routes' fixed bounds, read by the engine and the route table alike. */

/** The most subresources one page may fetch (API.md, "Documents to PDF"). */
export const maxSubresources = 200;

/** The tallest full-page capture: past it, the page is cut (Chromium's own texture limit). */
export const maxCaptureHeight = 16_384;

/** The screenshot formats and the content types they are answered with. */
export const screenshotTypes = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
export type ScreenshotFormat = keyof typeof screenshotTypes;
