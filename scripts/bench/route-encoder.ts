import { white } from '#shared/image/colour.ts';
import type { EncodeSettings } from '#shared/image/encode.ts';

/**
 * The encoder settings an image route uses for a body that asks nothing special (no palette, the
 * balanced effort, white behind transparency, metadata dropped), for the bare-sharp contenders.
 */
export const routeSettings = (pixels: number, quality?: number): EncodeSettings => ({
  quality,
  palette: false,
  effort: 'balanced',
  pixels,
  flattenOnto: white,
  keepMetadata: false,
});
