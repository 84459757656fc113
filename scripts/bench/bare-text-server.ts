/**
 * Baselines for the text routes, each a plain node:http server started in its own process by the
 * text benchmark (it prints its port):
 *   bare-text-server.ts bare      the same work as /slugify and /hash (parse the JSON body, call
 *                                 the same function, answer JSON), with none of our layers
 *   bare-text-server.ts middy     the least any middy handler costs: middy with the chosen JSON
 *                                 body parser, the routes' zod schemas and the same work, none of
 *                                 our middleware, no log line, no gateway
 *   bare-text-server.ts handler   the routes' Lambda handlers (middy stack, zod, logging) invoked
 *                                 directly, without the gateway's emulation of API Gateway
 *   bare-text-server.ts data-middy  the data and crypto routes as bare middy handlers: the JSON body
 *                                 parser, each route's zod schema and its work (data-work.ts)
 *
 * Every mode makes a Lambda context a request, as Lambda does: a context's remaining time runs out
 * a minute after it is made, and middy then ends the request.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { batchLogLines } from '#shared/log.ts';
import { hashText } from '#shared/text/hash.ts';
import { type HashAlgorithm, hashBody, slugifyBody } from '#shared/text/schemas.ts';
import { slugify } from '#shared/text/slugify.ts';
import { installAwsLambdaGlobal } from '../../infra/local/awslambda.ts';
import { invokeHandler } from '../../infra/local/invoke.ts';
import { apiEvent, lambdaContext } from '../../test/support/lambda.ts';
import { dataWork } from './data-work.ts';

type Answer = { status: number; headers: Record<string, string | string[]>; body: string | Buffer };

const bare: Record<string, (body: string) => Promise<Answer>> = {
  '/slugify': async (body) => {
    const { text } = JSON.parse(body) as { text: string };
    return json({ slug: slugify(text, { separator: '-', lowercase: true }) });
  },
  '/hash': async (body) => {
    const { text, algorithm = 'sha256' } = JSON.parse(body) as { text: string; algorithm?: HashAlgorithm };
    return json({ algorithm, encoding: 'hex', hash: hashText(text, algorithm, 'hex') });
  },
};

function json(value: unknown): Answer {
  return {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify(value),
  };
}

function bareMiddy(): Record<string, (body: string) => Promise<Answer>> {
  const route = (work: (body: unknown) => Answer) => {
    const handler = middy<APIGatewayProxyEvent, Answer>()
      .use(httpJsonBodyParser())
      .handler(async (event) => work(event.body));
    return (body: string) => handler(apiEvent(body, { tier: 'enterprise' }), lambdaContext());
  };
  return {
    '/slugify': route((body) => {
      const { text, ...options } = slugifyBody.parse(body);
      return json({ slug: slugify(text, options) });
    }),
    '/hash': route((body) => {
      const { text, algorithm, encoding } = hashBody.parse(body);
      return json({ algorithm, encoding, hash: hashText(text, algorithm, encoding) });
    }),
  };
}

/** The data and crypto routes, each as a bare middy handler over its schema and work. */
function dataMiddy(): Record<string, (body: string) => Promise<Answer>> {
  return Object.fromEntries(
    Object.entries(dataWork).map(([path, { schema, run }]) => {
      const handler = middy<APIGatewayProxyEvent, Answer>()
        .use(httpJsonBodyParser())
        .handler(async (event) => json(await run(schema.parse(event.body))));
      return [path, (body: string) => handler(apiEvent(body, { tier: 'enterprise' }), lambdaContext())];
    }),
  );
}

async function handlers(): Promise<Record<string, (body: string) => Promise<Answer>>> {
  installAwsLambdaGlobal();
  batchLogLines(); // as the gateway does
  const routes: Record<string, (body: string) => Promise<Answer>> = {};
  for (const name of ['slugify', 'hash']) {
    const { handler } = (await import(`../../functions/${name}/handler.ts`)) as { handler: unknown };
    routes[`/${name}`] = async (body) => {
      const result = await invokeHandler(
        handler,
        apiEvent(body, { tier: 'enterprise', path: `/${name}` }),
        lambdaContext(),
      );
      return { status: result.statusCode, headers: result.headers, body: result.body as Buffer };
    };
  }
  return routes;
}

const modes = {
  bare: async () => bare,
  middy: async () => bareMiddy(),
  handler: handlers,
  'data-middy': async () => dataMiddy(),
};
const work = await modes[process.argv[2] as keyof typeof modes]();

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const route = work[request.url ?? ''];
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    void route(Buffer.concat(chunks).toString('utf8')).then((answer) => {
      response.writeHead(answer.status, {
        ...answer.headers,
        'Content-Length': Buffer.byteLength(answer.body),
      });
      response.end(answer.body);
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
