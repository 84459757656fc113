import { describe, expect, it } from 'vitest';
import { handler } from '#functions/slugify/handler.ts';
import { apiEvent, call } from '../support/lambda.ts';

describe('POST /slugify through the middy stack', () => {
  it('folds Unicode to an ASCII slug', async () => {
    const answer = await call(handler, apiEvent({ text: 'Héllo Wörld!' }));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ slug: 'hello-world' });
    expect(answer.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['Access-Control-Allow-Origin']).toBe('*');
    expect(answer.headers['X-Request-Id']).toMatch(/^test-/);
  });

  it('reads base64-encoded bodies as API Gateway delivers them', async () => {
    const answer = await call(handler, apiEvent({ text: 'Ærøskøbing Straße' }, { base64: true }));
    expect(answer.json()).toEqual({ slug: 'aeroskobing-strasse' });
  });

  it.each([
    ['invalid_json', apiEvent('{"text": '), 400],
    ['unsupported_media_type', apiEvent({ text: 'a' }, { headers: { 'Content-Type': 'text/plain' } }), 415],
    ['request_too_large', apiEvent({ text: 'a'.repeat(1024 * 1024) }), 413],
  ])('answers %s', async (code, event, status) => {
    const answer = await call(handler, event);
    expect(answer.statusCode).toBe(status);
    expect(answer.json()).toMatchObject({ error: code });
  });

  it('names every offending field, unknown ones included', async () => {
    const answer = await call(handler, apiEvent({ text: 5, maxLenght: 3, lowercase: 'yes' }));
    expect(answer.statusCode).toBe(400);
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('validation_failed');
    expect(body.message).toContain('text:');
    expect(body.message).toContain('lowercase:');
    expect(body.message).toContain('maxLenght: unknown field');
  });

  it('accepts a charset parameter', async () => {
    const event = apiEvent(
      { text: 'a b' },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    );
    expect((await call(handler, event)).statusCode).toBe(200);
  });
});
