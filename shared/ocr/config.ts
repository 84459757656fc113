import { existsSync } from 'node:fs';
import * as z from 'zod';
import { languageCodePattern, shippedLanguages } from '#shared/ocr/limits.ts';

/** Where the tesseract layer (layers/tesseract) appears on Lambda. */
export const lambdaTesseractDir = '/opt/tesseract';

const languageList = z
  .string()
  .optional()
  .transform((list) =>
    (list ?? '')
      .split(',')
      .map((code) => code.trim())
      .filter((code) => code !== ''),
  )
  .pipe(z.array(z.string().regex(languageCodePattern, 'a Tesseract language code such as "chi_sim"')));

const envSchema = z.object({
  /** Where the tesseract layer is (its bin/, lib/ and tessdata/); on Lambda /opt/tesseract. */
  TESSERACT_LAYER_DIR: z.string().min(1).default(lambdaTesseractDir),
  /** A tesseract binary to run instead of the layer's or the system's. */
  TESSERACT_PATH: z.string().min(1).optional(),
  /** The folder of the `.traineddata` files, when not the binary's own default. */
  TESSDATA_PREFIX: z.string().min(1).optional(),
  /** Languages offered besides the shipped ones, comma-separated; their data must be installed. */
  OCR_LANGUAGES: languageList,
});

/**
 * How tesseract is run. The layer holds Debian's binary with every library it links, glibc and its
 * loader included (Lambda's Amazon Linux has an older glibc than Debian 12's), so it is started
 * through the layer's own loader. Off Lambda, Debian's package (`npm run system-tools`).
 */
export interface TesseractCommand {
  file: string;
  /** Arguments before tesseract's own (the loader's). */
  prefix: string[];
  /** The language data folder; undefined: the binary's default. */
  tessdata: string | undefined;
}

function resolveCommand(env: z.infer<typeof envSchema>): TesseractCommand {
  if (env.TESSERACT_PATH) return { file: env.TESSERACT_PATH, prefix: [], tessdata: env.TESSDATA_PREFIX };
  const layer = env.TESSERACT_LAYER_DIR;
  const layerLoader = `${layer}/lib/ld-linux-x86-64.so.2`;
  if (existsSync(layerLoader)) {
    return {
      file: layerLoader,
      prefix: ['--library-path', `${layer}/lib`, `${layer}/bin/tesseract`],
      tessdata: env.TESSDATA_PREFIX ?? `${layer}/tessdata`,
    };
  }
  return { file: '/usr/bin/tesseract', prefix: [], tessdata: env.TESSDATA_PREFIX };
}

const parsed = envSchema.parse(process.env);

/** /ocr's settings, parsed once when the function starts. */
export const ocrConfig = {
  command: resolveCommand(parsed),
  /** The languages a request may ask for: the shipped ones and the configured ones. */
  languages: [...new Set([...shippedLanguages, ...parsed.OCR_LANGUAGES])] as readonly string[],
};
