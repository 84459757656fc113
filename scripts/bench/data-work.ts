/**
 * The work of each data and crypto route as its handler does it, with the route's own schema: what
 * the bare middy baseline of the data bench (bare-text-server.ts data-middy) runs, none of our
 * middleware around it.
 */
import type { AnySchema } from 'ajv';
import type * as z from 'zod';
import { signJwt } from '#shared/crypto/jwt-sign.ts';
import { makeKeyPair } from '#shared/crypto/keypair.ts';
import { passwordStrength } from '#shared/crypto/password-strength.ts';
import { currentTotp, verifyTotp } from '#shared/crypto/totp.ts';
import { convertData } from '#shared/data/convert.ts';
import { validateJson } from '#shared/data/json-validate.ts';
import { markdownToHtmlText } from '#shared/data/markdown-html.ts';
import { diffTexts } from '#shared/data/text-diff.ts';
import {
  jwtSignRoute,
  keypairRoute,
  passwordStrengthRoute,
  totpRoute,
  totpVerifyRoute,
} from '#shared/routes/crypto-more.ts';
import {
  dataConvertRoute,
  jsonValidateRoute,
  markdownToHtmlRoute,
  textDiffRoute,
} from '#shared/routes/data.ts';

interface Work<S extends z.ZodType> {
  schema: S;
  run(body: z.output<S>): unknown;
}
const work = <S extends z.ZodType>(schema: S, run: (body: z.output<S>) => unknown): Work<S> => ({
  schema,
  run,
});

export const dataWork: Record<string, Work<z.ZodType>> = {
  '/data-convert': work(dataConvertRoute.body, (body) => ({ result: convertData(body) })),
  '/markdown-to-html': work(markdownToHtmlRoute.body, (body) => ({
    html: markdownToHtmlText(body.markdown, body.fullDocument),
  })),
  '/text-diff': work(textDiffRoute.body, (body) => diffTexts(body)),
  '/json-validate': work(jsonValidateRoute.body, (body) => validateJson(body.data, body.schema as AnySchema)),
  '/jwt-sign': work(jwtSignRoute.body, (body) => signJwt(body)),
  '/keypair': work(keypairRoute.body, (body) =>
    makeKeyPair({ ...body, modulusLength: body.modulusLength ?? 2048, curve: body.curve ?? 'P-256' }),
  ),
  '/totp': work(totpRoute.body, (body) => currentTotp(body)),
  '/totp-verify': work(totpVerifyRoute.body, (body) => verifyTotp(body)),
  '/password-strength': work(passwordStrengthRoute.body, (body) =>
    passwordStrength(body.password, body.userInputs),
  ),
};
