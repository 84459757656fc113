import { describe, expect, it } from 'vitest';
import { handler } from '#functions/hash/handler.ts';
import { assertJsonContentType, decodeUtf8Body } from '#shared/http/body-text.ts';
import { apiEvent, call } from '../../support/lambda.ts';
import { bodyWith, notUtf8 } from '../../support/utf8-bodies.ts';

const base64Event = (bytes: Buffer, contentType = 'application/json') => ({
  ...apiEvent(undefined, { headers: { 'Content-Type': contentType } }),
  body: bytes.toString('base64'),
  isBase64Encoded: true,
});

describe('request bodies are UTF-8 only', () => {
  it.each(notUtf8)('refuses %s with 400 invalid_json, never hashing U+FFFD', async (_, bytes) => {
    const answer = await call(handler, base64Event(bodyWith(bytes)));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      error: 'invalid_json',
      message: 'The request body is not valid UTF-8 (RFC 8259 JSON is UTF-8 only).',
    });
  });

  it('refuses a lone surrogate in a body that arrived as text', async () => {
    const answer = await call(handler, apiEvent('{"text":"a\uD800b"}'));
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: 'invalid_json' });
  });

  it('reads well-formed UTF-8, four-byte sequences included', async () => {
    const answer = await call(handler, base64Event(bodyWith([...Buffer.from('é€😀')])));
    expect(answer.statusCode).toBe(200);
    const expected = (await call(handler, apiEvent({ text: 'aé€😀b' }))).json();
    expect(answer.json()).toEqual(expected);
  });

  it.each([
    'application/json; charset=iso-8859-1',
    'application/json; charset="latin1"',
    'application/json;charset=UTF-16',
    'application/json; charset=utf8',
    'application/json; charset=us-ascii',
  ])('answers 415 unsupported_media_type for %s', async (contentType) => {
    const answer = await call(handler, base64Event(Buffer.from('{"text":"a"}'), contentType));
    expect(answer.statusCode).toBe(415);
    expect(answer.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('refuses latin-1 é declared as iso-8859-1 instead of reading it in either charset', async () => {
    const answer = await call(handler, base64Event(bodyWith([0xe9]), 'application/json; charset=iso-8859-1'));
    expect(answer.statusCode).toBe(415);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json;charset="Utf-8"',
    'Application/JSON; charset=utf-8',
  ])('accepts %s', async (contentType) => {
    const answer = await call(handler, base64Event(Buffer.from('{"text":"a"}'), contentType));
    expect(answer.statusCode).toBe(200);
  });
});

describe('decodeUtf8Body and assertJsonContentType', () => {
  it('decodes UTF-8 byte for byte and keeps a byte order mark for JSON.parse to refuse', () => {
    expect(decodeUtf8Body(Buffer.from('{"a":"ß"}'))).toBe('{"a":"ß"}');
    expect(decodeUtf8Body(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('\uFEFF{}');
  });

  it('throws for a malformed media type instead of guessing', () => {
    expect(() => assertJsonContentType('application/json; charset')).toThrow(/application\/json/);
    expect(() => assertJsonContentType('')).toThrow();
  });
});
