/**
 * The same floor with zod's tree-shakable `zod/mini` API: what a function would pay at init if
 * its schemas were written that way (scripts/bench/cold-start.ts).
 */
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { minLength, strictObject, string } from 'zod/mini';

const body = strictObject({ text: string().check(minLength(1)) });

export const handler = middy<{ body: unknown }>()
  .use(httpJsonBodyParser())
  .handler(async (event) => ({ statusCode: 200, body: JSON.stringify(body.parse(event.body)) }));
