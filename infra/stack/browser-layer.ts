import { buildChromiumLayer, lambdaChromiumDir } from '../../layers/chromium/build.ts';
import { buildFontsLayer, lambdaFontconfigFile } from '../../layers/fonts/build.ts';
import type { BuiltLayer } from '../../layers/layer.ts';

/**
 * The browser routes' two layers: the packed Chromium (~67 MiB of brotli files; too large for a
 * direct upload, so CDK stages it in its assets bucket like every asset) and the fonts pages are
 * set in. A function gets both when its bundle contains the browser launcher.
 */
export const browserLayerNames = ['chromium', 'fonts'] as const;
export type BrowserLayerName = (typeof browserLayerNames)[number];

/** A bundle that contains this module drives Chromium. */
export const browserMarker = 'shared/documents/browser-launch.ts';

export const browserLayerDescriptions: Record<BrowserLayerName, string> = {
  chromium: 'Packed Chromium (@sparticuz/chromium) for linux-x64, under chromium/',
  fonts: 'Liberation, Noto and Noto Sans CJK fonts with a fontconfig file, under fonts/',
};

/** Where the functions find the browser and its fonts. */
export const browserEnvironment = {
  CHROMIUM_PACK_DIR: lambdaChromiumDir,
  FONTCONFIG_FILE: lambdaFontconfigFile,
} as const;

/** Builds both layers (each only when its inputs changed). */
export const buildBrowserLayers = (): Record<BrowserLayerName, BuiltLayer> => ({
  chromium: buildChromiumLayer(),
  fonts: buildFontsLayer(),
});
