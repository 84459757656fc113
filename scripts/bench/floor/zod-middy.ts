/**
 * The floor of a function's cold start (scripts/bench/cold-start.ts): the packages every POST
 * handler is built on, with no work of its own: zod, imported as the functions import it
 * (`import * as z`), and middy with the chosen JSON body parser.
 */
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import * as z from 'zod';

const body = z.strictObject({ text: z.string().min(1) });

export const handler = middy<{ body: unknown }>()
  .use(httpJsonBodyParser())
  .handler(async (event) => ({ statusCode: 200, body: JSON.stringify(body.parse(event.body)) }));
