import './install-awslambda.ts';
import { once } from 'node:events';
import { flushCompileCache } from 'node:module';
import { Socket } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { redirectLogLines } from '#shared/log.ts';
import { lambdaContext } from './event.ts';
import { FrameType, frameHeader } from './frames.ts';
import { loadHandler } from './handlers.ts';
import { invokeHandler } from './invoke.ts';
import { runLingerHook, runTestHook } from './worker-test-hooks.ts';

/**
 * One execution environment of a function, as a process of its own: it loads only its handler and
 * runs one invocation at a time, as the gateway's worker pool sends them over the IPC channel. The
 * answer goes back over file descriptor 3 as frames (frames.ts), so a streamed file passes through
 * chunk by chunk with the pipe's backpressure.
 */
export interface Invocation {
  event: APIGatewayProxyEvent | unknown;
  timeoutMs: number;
}

const functionName = process.argv[2] ?? '';
const memoryMiB = Number(process.argv[3] ?? 1024);
const answers = new Socket({ fd: 3, readable: false, writable: true });

// The function's log lines go to the gateway with the next frames this turn sends (a request's line
// is logged just before its answer), else at the end of the turn: no write of their own per request.
let lines = '';
redirectLogLines((line) => {
  if (!lines) setImmediate(() => lines && send());
  lines += line;
});

const loading = loadHandler(functionName);

/**
 * Writes frames, and the log lines not yet sent, in one system call (the gateway is woken once per
 * answer, not once per piece).
 */
function send(...frames: [FrameType, Buffer?][]): boolean {
  if (lines) {
    frames.unshift([FrameType.log, Buffer.from(lines)]);
    lines = '';
  }
  answers.cork();
  let room = true;
  for (const [type, payload = Buffer.alloc(0)] of frames) {
    room = answers.write(frameHeader(type, payload.length));
    if (payload.length > 0) room = answers.write(payload);
  }
  answers.uncork();
  return room;
}

async function run({ event, timeoutMs }: Invocation): Promise<void> {
  try {
    const { handler } = await loading;
    await runTestHook(event);
    const context = lambdaContext(functionName, timeoutMs, memoryMiB);
    const result = await invokeHandler(handler, event as APIGatewayProxyEvent, context);
    const buffered = Buffer.isBuffer(result.body);
    const head: [FrameType, Buffer] = [
      FrameType.head,
      Buffer.from(JSON.stringify({ statusCode: result.statusCode, headers: result.headers, buffered })),
    ];
    if (Buffer.isBuffer(result.body)) {
      await result.done;
      send(head, [FrameType.data, result.body], [FrameType.end]);
      return;
    }
    send(head);
    for await (const chunk of result.body) {
      if (!send([FrameType.data, Buffer.from(chunk as Uint8Array)])) await once(answers, 'drain');
    }
    await runLingerHook(event);
    await result.done;
    send([FrameType.end]);
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    send([FrameType.fail, Buffer.from(JSON.stringify({ message }))]);
  }
}

// A module that fails to load (bad configuration, a missing native library) ends the process, as
// a failed init ends a Lambda execution environment; the pool answers the waiting call.
loading.catch((error: unknown) => {
  process.stderr.write(
    `${functionName}: init failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});

// Init done: the pool starts an invocation's timeout only now, as Lambda bills and times init apart.
// The compiled modules go to the compile cache now (worker-process.ts): the pool ends workers with
// SIGKILL, which leaves no exit at which Node would write it.
void loading.then(() => {
  flushCompileCache();
  process.send?.({ ready: true });
});

process.on('message', (message: Invocation) => {
  void run(message);
});
// The gateway gone means nobody will ever send work again.
process.on('disconnect', () => process.exit(0));
