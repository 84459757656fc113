import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';

const envSchema = z.object({
  /** A Chromium to run instead of the packed one (the packed one unpacks to /tmp on first use). */
  CHROMIUM_EXECUTABLE: z.string().min(1).optional(),
  /** Where the packed Chromium's .br files are: the chromium layer on Lambda, else the package's own. */
  CHROMIUM_PACK_DIR: z.string().min(1).optional(),
  /** The fonts the pages get: the fonts layer's configuration on Lambda, the same fonts locally. */
  FONTCONFIG_FILE: z.string().min(1).optional(),
  /** How long a page may take to load before it is printed as it stands (contract: 30 s). */
  BROWSER_LOAD_MS: z.coerce.number().int().positive().default(30_000),
  /** How long printing or capturing a loaded page may take before the answer is 504 render_timeout. */
  BROWSER_PRINT_MS: z.coerce.number().int().positive().default(20_000),
});

/** A file `npm run layer:<name>` built in .layers, when it is there. */
function built(file: string): string | undefined {
  const path = fileURLToPath(new URL(`../../.layers/${file}`, import.meta.url));
  return existsSync(path) ? path : undefined;
}

/**
 * Off Lambda, the fonts layer's own files as `npm run layer:fonts` built them here, so that pages
 * look as they do in production; without that build, the machine's fonts.
 */
const localFontconfig = () => built('fonts.local.conf');

/** Off Lambda, the packed Chromium as `npm run layer:chromium` unpacked it once for every worker. */
const localChromium = () =>
  process.env.AWS_EXECUTION_ENV === undefined ? built('chromium-unpacked/chromium') : undefined;

const parsed = envSchema.parse(process.env);

/** The browser routes' settings, parsed once when the function starts. */
export const documentsConfig = {
  ...parsed,
  FONTCONFIG_FILE: parsed.FONTCONFIG_FILE ?? localFontconfig(),
  CHROMIUM_EXECUTABLE: parsed.CHROMIUM_EXECUTABLE ?? localChromium(),
};
