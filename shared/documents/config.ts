import { z } from 'zod';

const envSchema = z.object({
  /** A Chromium to run instead of the packed one (the packed one unpacks to /tmp on first use). */
  CHROMIUM_EXECUTABLE: z.string().min(1).optional(),
  /** The fonts the pages get: the fonts layer's configuration on Lambda, the same fonts locally. */
  FONTCONFIG_FILE: z.string().min(1).optional(),
  /** How long a page may take to load before it is printed as it stands (contract: 30 s). */
  BROWSER_LOAD_MS: z.coerce.number().int().positive().default(30_000),
  /** How long printing or capturing a loaded page may take before the answer is 504 render_timeout. */
  BROWSER_PRINT_MS: z.coerce.number().int().positive().default(20_000),
});

/** The browser routes' settings, parsed once when the function starts. */
export const documentsConfig = envSchema.parse(process.env);
