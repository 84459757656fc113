import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, startLocalGateway } from '../support/gateway.ts';

/**
 * POST /uploads through a local gateway that refuses private sources (SOURCE_ALLOW_PRIVATE unset),
 * as a deployment does: a file PUT to the presigned URL of the gateway's embedded S3 (on loopback)
 * is read back as a source by a file route, while a look-alike of the link, a tampered signature
 * and any other loopback URL are refused as private. Images are made and read by ImageMagick.
 */

const run = promisify(execFile);
const PRO = 'uploads-pro-key';
const FREE = 'uploads-free-key';
const fixtures = new FixtureServer();
let gateway: RunningGateway;
let png: Buffer;

interface Ticket {
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  sourceUrl: string;
  expiresAt: string;
}

const post = (path: string, body: unknown, key = PRO) =>
  postJson(`${gateway.url}${path}`, body, key ? { 'x-api-key': key } : {});

async function identify(bytes: Buffer): Promise<string> {
  const child = execFile('identify', ['-format', '%m %w %h', '-']);
  const out = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', () => resolve(text.trim()));
  });
  child.stdin?.end(bytes);
  return out;
}

/** Requests an upload of `bytes` and PUTs them; answers the ticket. */
async function upload(bytes: Buffer, filename = 'red square.png'): Promise<Ticket> {
  const answer = await post('/uploads', { filename, contentType: 'image/png', sizeBytes: bytes.length });
  expect(answer.status).toBe(201);
  const ticket = (await answer.json()) as Ticket;
  const put = await fetch(ticket.uploadUrl, {
    method: ticket.method,
    headers: ticket.headers,
    body: new Uint8Array(bytes),
  });
  expect(put.status).toBe(200);
  return ticket;
}

beforeAll(async () => {
  png = (await run('convert', ['-size', '64x48', 'xc:red', 'png:-'], { encoding: 'buffer' })).stdout;
  await fixtures.start();
  fixtures.serve('/red.png', png, 'image/png');
  gateway = await startLocalGateway({
    SOURCE_ALLOW_PRIVATE: '',
    LOCAL_ISOLATION: 'in-process',
    API_KEYS: `${PRO}:pro,${FREE}:free`,
  });
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await fixtures.stop();
});

describe('POST /uploads with private sources refused', () => {
  it('answers 201 with a PUT URL of the embedded S3 for the exact size, and a download link as sourceUrl', async () => {
    const answer = await post('/uploads', {
      filename: 'photo.png',
      contentType: 'image/png',
      sizeBytes: png.length,
    });
    expect(answer.status).toBe(201);
    const ticket = (await answer.json()) as Ticket;
    expect(ticket.method).toBe('PUT');
    expect(ticket.headers).toEqual({ 'Content-Length': String(png.length), 'Content-Type': 'image/png' });
    expect(ticket.uploadUrl.startsWith(`${gateway.s3Endpoint}/jobs/uploads/`)).toBe(true);
    expect(new URL(ticket.sourceUrl).pathname).toBe(new URL(ticket.uploadUrl).pathname);
    const minutes = (Date.parse(ticket.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    // The store refuses a body of another length (its Content-Length is signed), and keeps nothing.
    const short = await fetch(ticket.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: new Uint8Array(png.subarray(1)),
    });
    expect(short.status).toBe(403);
    expect((await fetch(ticket.sourceUrl)).status).toBe(404);
  });

  it('converts an uploaded file given as sourceUrl, named after the upload', async () => {
    const ticket = await upload(png);
    const answer = await post('/image-convert', { sourceUrl: ticket.sourceUrl, outputFormat: 'jpg' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe('inline; filename="red-square.jpg"');
    expect(await identify(Buffer.from(await answer.arrayBuffer()))).toBe('JPEG 64 48');
  });

  it('refuses a look-alike of the link, a tampered signature and other loopback sources as private', async () => {
    const ticket = await upload(png);
    const lookAlike = ticket.sourceUrl.replace('http://127.0.0.1:', 'http://localhost:');
    const signature = new URL(ticket.sourceUrl).searchParams.get('X-Amz-Signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    const tampered = ticket.sourceUrl.replace(signature, flipped);
    const otherKey = ticket.sourceUrl.replace('/red-square.png', '/other.png');
    for (const sourceUrl of [lookAlike, tampered, otherKey, fixtures.url('/red.png')]) {
      const answer = await post('/image-convert', { sourceUrl, outputFormat: 'jpg' });
      expect(answer.status, sourceUrl).toBe(400);
      expect((await answer.json()).error, sourceUrl).toBe('source_blocked_address');
    }
  });

  it('refuses an outputUrl on a private address before any work', async () => {
    const ticket = await upload(png);
    const answer = await post('/image-convert', {
      sourceUrl: ticket.sourceUrl,
      outputFormat: 'jpg',
      outputUrl: `https://127.0.0.1:${new URL(fixtures.url('/')).port}/out.jpg`,
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'source_blocked_address' });
  });

  it('is for paid keys within their source size', async () => {
    const body = { filename: 'big.mp4', sizeBytes: 200_000_001 };
    const missing = await post('/uploads', body, '');
    expect(missing.status).toBe(401);
    expect((await missing.json()).error).toBe('missing_api_key');
    const free = await post('/uploads', body, FREE);
    expect(free.status).toBe(403);
    expect((await free.json()).error).toBe('insufficient_permissions');
    const tooLarge = await post('/uploads', body);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({
      error: 'source_too_large',
      message: expect.stringContaining('enterprise tier'),
    });
    const invalid = await post('/uploads', { filename: '', sizeBytes: 0, extra: 1 });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).message).toMatch(/filename.*sizeBytes.*extra|extra/s);
  });
});
