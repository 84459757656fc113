import { describe, expect, it } from 'vitest';
import { handler as decode } from '#functions/decode/handler.ts';
import { handler as encode } from '#functions/encode/handler.ts';
import { handler as hash } from '#functions/hash/handler.ts';
import { handler as slugify } from '#functions/slugify/handler.ts';
import { handler as textCase } from '#functions/text-case/handler.ts';
import { handler as textStats } from '#functions/text-stats/handler.ts';
import { apiEvent, call } from '../../support/lambda.ts';

const post = async (handler: unknown, body: unknown) => {
  const answer = await call(handler, apiEvent(body));
  return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
};

describe('text routes through the middy stack', () => {
  it('POST /hash answers with the defaults of the contract', async () => {
    expect(await post(hash, { text: 'abc' })).toEqual({
      status: 200,
      body: {
        algorithm: 'sha256',
        encoding: 'hex',
        hash: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      },
    });
    const sha3 = await post(hash, { text: 'abc', algorithm: 'sha3-256', encoding: 'base64' });
    expect(sha3.body.hash).toBe(
      Buffer.from('3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532', 'hex').toString(
        'base64',
      ),
    );
  });

  it('POST /encode and /decode round-trip', async () => {
    expect(await post(encode, { text: 'Hello, Wörld!', encoding: 'base64' })).toEqual({
      status: 200,
      body: { encoding: 'base64', result: 'SGVsbG8sIFfDtnJsZCE=' },
    });
    expect(await post(decode, { text: 'SGVsbG8sIFfDtnJsZCE=', encoding: 'base64' })).toEqual({
      status: 200,
      body: { encoding: 'base64', result: 'Hello, Wörld!' },
    });
  });

  it('POST /decode answers 400 invalid_input for text that is not in the encoding', async () => {
    const answer = await post(decode, { text: 'Zm9v YmFy', encoding: 'base64' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_input');
    expect(answer.body.message).toMatch(/base64/);
  });

  it('POST /text-case and /text-stats answer', async () => {
    expect(await post(textCase, { text: 'hello wonderful world', case: 'camel' })).toEqual({
      status: 200,
      body: { case: 'camel', result: 'helloWonderfulWorld' },
    });
    const stats = await post(textStats, { text: 'Hello world. This is a test.\n\nSecond paragraph.' });
    expect(stats.body).toMatchObject({
      words: 8,
      sentences: 3,
      lines: 3,
      paragraphs: 2,
      readingTimeSeconds: 3,
    });
  });

  it('POST /slugify takes a locale', async () => {
    expect((await post(slugify, { text: 'Héllo Wörld!' })).body).toEqual({ slug: 'hello-world' });
    expect((await post(slugify, { text: 'Héllo Wörld!', locale: 'de' })).body).toEqual({
      slug: 'hello-woerld',
    });
  });

  it('POST /slugify answers 400 invalid_input for a text with nothing to keep', async () => {
    for (const text of ['!!!', ' - ', '🙂']) {
      expect(await post(slugify, { text })).toEqual({
        status: 400,
        body: { error: 'invalid_input', message: 'text: has no letter or digit to make a slug of.' },
      });
    }
  });

  it('POST /slugify takes each URL-safe separator', async () => {
    for (const separator of ['_', '.', '~', '-_.', '~~']) {
      expect((await post(slugify, { text: 'Héllo Wörld', separator })).body).toEqual({
        slug: `hello${separator}world`,
      });
    }
  });

  it.each([
    ['/hash', hash, { text: 'a', algorithm: 'sha224' }, 'algorithm'],
    ['/hash', hash, { text: '\ud800' }, 'text'],
    ['/encode', encode, { text: 'a', encoding: 'base58' }, 'encoding'],
    ['/encode', encode, { text: 'a' }, 'encoding'],
    ['/decode', decode, { text: 1, encoding: 'hex' }, 'text'],
    ['/text-case', textCase, { text: 'a', case: 'spongebob' }, 'case'],
    ['/text-stats', textStats, { text: 'a', language: 'en' }, 'language'],
    ['/slugify', slugify, { text: 'a', locale: 'fr' }, 'locale'],
    ['/slugify', slugify, { text: 'a b', separator: '  ' }, 'separator'],
    ['/slugify', slugify, { text: 'a b', separator: '/' }, 'separator'],
    ['/slugify', slugify, { text: 'a b', separator: '----' }, 'separator'],
    ['/slugify', slugify, { text: 'a b', separator: '' }, 'separator'],
  ])('%s answers 400 validation_failed naming %j', async (_route, handler, body, field) => {
    const answer = await post(handler, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation_failed');
    expect(answer.body.message).toContain(`${field}:`);
  });
});
