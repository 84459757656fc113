/**
 * The floor of a function's cold start (scripts/bench/cold-start.ts): the two packages every
 * handler is built on, zod imported as the functions import it (`import * as z`), and middy, with
 * no work of its own.
 */
import middy from '@middy/core';
import * as z from 'zod';

const body = z.strictObject({ text: z.string().min(1) });

export const handler = middy(async (event: { body: string }) => ({
  statusCode: 200,
  body: JSON.stringify(body.parse(JSON.parse(event.body))),
}));
