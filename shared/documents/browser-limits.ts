/** The browser routes' fixed bounds, read by the engine and the route table alike. */

const MiB = 1024 * 1024;

/** A bound in the words of the messages and route descriptions, e.g. `5 MiB`. */
export const inMiB = (bytes: number): string => `${bytes / MiB} MiB`;

/** The most subresources one page may fetch (API.md, "Documents to PDF"). */
export const maxSubresources = 200;

/**
 * The most bytes one page may fetch in all, its own document included, whatever the tier allows:
 * every fetched body is held in memory and handed to the browser, which decodes it again.
 */
export const maxPageBytes = 100 * MiB;

/** The largest HTML document the browser opens (a `sourceUrl` or `url` page). */
export const maxHtmlBytes = 5 * MiB;

/** The largest Markdown document typeset, inline or fetched. */
export const maxMarkdownBytes = MiB;

/** The most columns a Markdown table may have. */
export const maxTableColumns = 100;

/** The most pages one print may have. */
export const maxPrintPages = 1000;

/**
 * The memory the browser's processes may hold together: past it the page is given up with 400
 * (the function has 2 GB, of which the rest is Node and the answer).
 */
export const maxBrowserBytes = 1024 * MiB;

/** The private memory any one browser process may map (its data limit): a page's script or layout
 * that asks for more is refused the allocation, or its renderer ends. */
export const maxProcessDataBytes = 512 * MiB;

/** The tallest full-page capture: past it, the page is cut (Chromium's own texture limit). */
export const maxCaptureHeight = 16_384;

/** The screenshot formats and the content types they are answered with. */
export const screenshotTypes = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
export type ScreenshotFormat = keyof typeof screenshotTypes;
