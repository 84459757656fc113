import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { bodyWith, notUtf8 } from '../support/utf8-bodies.ts';

/** POSTs raw bytes, so that nothing on the way re-encodes them. */
function postBytes(
  url: string,
  body: Buffer,
  contentType: string,
): Promise<{ status: number; json: { error?: string; hash?: string } }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': contentType,
          'Content-Length': body.length,
          'X-Api-Key': SHARED_KEYS.enterprise,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: string },
          }),
        );
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

describe('strict UTF-8 request bodies through the local gateway', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = sharedGateway();
  });
  afterAll(() => gateway.stop());

  it.each(notUtf8)('answers 400 invalid_json for %s', async (_, bytes) => {
    const answer = await postBytes(`${gateway.url}/hash`, bodyWith(bytes), 'application/json');
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe('invalid_json');
  });

  it('answers 415 for latin-1 é declared as iso-8859-1, quoted or not, in any case', async () => {
    for (const contentType of [
      'application/json; charset=iso-8859-1',
      'application/json; charset="ISO-8859-1"',
      'application/json;charset=windows-1252',
    ]) {
      const answer = await postBytes(`${gateway.url}/hash`, bodyWith([0xe9]), contentType);
      expect(answer.status, contentType).toBe(415);
      expect(answer.json.error, contentType).toBe('unsupported_media_type');
    }
  });

  it('hashes the bytes sent: é in UTF-8 is answered, and differs from the replacement character', async () => {
    const utf8 = await postBytes(
      `${gateway.url}/hash`,
      bodyWith([0xc3, 0xa9]),
      'application/json; charset="UTF-8"',
    );
    const replacement = await postBytes(
      `${gateway.url}/hash`,
      bodyWith([0xef, 0xbf, 0xbd]),
      'application/json',
    );
    expect(utf8.status).toBe(200);
    expect(replacement.status).toBe(200);
    expect(utf8.json.hash).not.toBe(replacement.json.hash);
  });
});
