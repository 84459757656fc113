import { base32, base64, base64urlnopad, hex } from '@scure/base';
import { escapeUTF8 } from 'entities';
import type { TextEncoding } from '#shared/text/schemas.ts';

const utf8 = new TextEncoder();

/** Writes text in one of the contract's encodings; binary encodings encode its UTF-8 bytes. */
export function encodeText(text: string, encoding: TextEncoding): string {
  switch (encoding) {
    case 'base64':
      return base64.encode(utf8.encode(text));
    case 'base64url':
      return base64urlnopad.encode(utf8.encode(text));
    case 'base32':
      return base32.encode(utf8.encode(text));
    case 'hex':
      return hex.encode(utf8.encode(text));
    case 'url':
      return encodeURIComponent(text);
    case 'html':
      // & < > " ' become references: safe in element content and in quoted attribute values.
      return escapeUTF8(text);
  }
}
