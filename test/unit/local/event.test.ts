import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxyHeaders } from '../../../infra/local/event.ts';

describe('proxy event headers', () => {
  it('keeps the last value of a repeated header in headers and every value in multiValueHeaders', () => {
    const request = new IncomingMessage(new Socket());
    request.rawHeaders = ['Host', 'local', 'X-Api-Key', 'first', 'x-api-key', 'second', 'Accept', '*/*'];
    expect(proxyHeaders(request)).toEqual({
      headers: { host: 'local', 'x-api-key': 'second', accept: '*/*' },
      multiValueHeaders: { host: ['local'], 'x-api-key': ['first', 'second'], accept: ['*/*'] },
    });
  });
});
