import { parse as parseContentType } from 'content-type';
import { ApiError } from '#shared/errors.ts';

const wrongType = () =>
  new ApiError('unsupported_media_type', 'Send the request body as Content-Type: application/json.');

/**
 * A file sent in the request itself (a form upload, raw bytes): say how files do reach the
 * service. (When POST /uploads exists, this is the place to name it.)
 */
const fileInBody = () =>
  new ApiError(
    'unsupported_media_type',
    "Files are not sent in the request: give the file's address as sourceUrl (a public http(s) URL the service downloads) in a JSON body, Content-Type: application/json.",
  );

const fileTypes = /^(multipart\/|application\/octet-stream$|image\/|audio\/|video\/|application\/pdf$)/;

/**
 * The request must be `application/json`; a `charset` parameter, quoted or not, must name UTF-8.
 * JSON has no other encoding (RFC 8259), and a body read in a charset its sender did not mean
 * would be answered as if it said something else.
 */
export function assertJsonContentType(header: string): void {
  let parsed: ReturnType<typeof parseContentType>;
  try {
    parsed = parseContentType(header);
  } catch {
    throw wrongType();
  }
  if (parsed.type !== 'application/json') throw fileTypes.test(parsed.type) ? fileInBody() : wrongType();
  const charset = parsed.parameters.charset;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new ApiError(
      'unsupported_media_type',
      `The request body must be UTF-8; charset=${JSON.stringify(charset).slice(1, -1)} is not accepted.`,
    );
  }
}

const notUtf8 = () =>
  new ApiError('invalid_json', 'The request body is not valid UTF-8 (RFC 8259 JSON is UTF-8 only).');

/**
 * The body's bytes as text, refusing anything that is not well-formed UTF-8: an invalid byte, an
 * overlong or truncated sequence, an encoded surrogate. A lenient decoder would put U+FFFD in their
 * place, so different bodies would be read as one.
 */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    // ignoreBOM keeps a byte order mark in the text, so JSON.parse refuses it as it refuses one in
    // a body that arrived as text: both paths answer the same.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw notUtf8();
  }
}

/**
 * A body that reached the function as text (not base64) was decoded before it got here; all that
 * can still be wrong is a lone surrogate, which no UTF-8 byte sequence decodes to.
 */
export function assertWellFormedText(text: string): void {
  if (!text.isWellFormed()) throw notUtf8();
}
