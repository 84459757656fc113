import { describe, expect, it } from 'vitest';
import { assertJsonContentType } from '#shared/http/body-text.ts';

/** What a client is told when its Content-Type is not JSON in UTF-8. */
const refusal = (header: string) => {
  try {
    assertJsonContentType(header);
  } catch (error) {
    return error as { code: string; message: string };
  }
  return undefined;
};

describe('assertJsonContentType', () => {
  it.each(['text/plain', 'application/xml', ''])(
    '%j: 415 telling the client to send application/json',
    (header) => {
      expect(refusal(header)).toMatchObject({
        code: 'unsupported_media_type',
        message: 'Send the request body as Content-Type: application/json.',
      });
    },
  );

  it('tells a form upload that files come by sourceUrl', () => {
    expect(refusal('multipart/form-data; boundary=x')).toMatchObject({
      code: 'unsupported_media_type',
      message:
        "Files are not sent in the request: give the file's address as sourceUrl (a public http(s) URL the service downloads) in a JSON body, Content-Type: application/json.",
    });
  });

  it('quotes the charset it refuses, as sent', () => {
    expect(refusal('application/json; charset=latin1')).toMatchObject({
      code: 'unsupported_media_type',
      message: 'The request body must be UTF-8; charset=latin1 is not accepted.',
    });
    expect(refusal('application/json; charset="iso-8859-1"')?.message).toBe(
      'The request body must be UTF-8; charset=iso-8859-1 is not accepted.',
    );
  });

  it('takes JSON in UTF-8, the charset in any case, or no charset', () => {
    expect(refusal('application/json')).toBeUndefined();
    expect(refusal('application/json; charset=UTF-8')).toBeUndefined();
  });
});
