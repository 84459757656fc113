import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Points fontconfig (which libvips' text rendering asks for fonts) at the shipped fonts: the fonts
 * layer's file on Lambda (FONTCONFIG_FILE, set by the stack), off Lambda the same fonts as
 * `npm run layer:fonts` built them here; without that build, the machine's own fonts. fontconfig reads
 * the variable once, when the first text is rendered, so this runs before that.
 */
export function useShippedFonts(): void {
  if (process.env.FONTCONFIG_FILE) return;
  const local = fileURLToPath(new URL('../../.layers/fonts.local.conf', import.meta.url));
  if (existsSync(local)) process.env.FONTCONFIG_FILE = local;
}

/** The fontconfig families behind the contract's font names (aliases in the fonts layer's file). */
export const fontFamilies = { sans: 'sans-serif', serif: 'serif', mono: 'monospace' } as const;
