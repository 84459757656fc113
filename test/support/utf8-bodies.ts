/** `{"text":"a<bytes>b"}` as raw bytes: the only way to put a byte that is not UTF-8 in a body. */
export const bodyWith = (bytes: readonly number[]) =>
  Buffer.concat([Buffer.from('{"text":"a'), Buffer.from(bytes), Buffer.from('b"}')]);

/** Byte sequences that are not UTF-8, each of which a lenient decoder turns into U+FFFD. */
export const notUtf8: Array<[string, number[]]> = [
  ['an invalid byte', [0xff]],
  ['a lone continuation byte', [0x80]],
  ['an overlong "/"', [0xc0, 0xaf]],
  ['an overlong NUL in three bytes', [0xe0, 0x80, 0x80]],
  ['a sequence cut short', [0xe2, 0x82]],
  ['a four-byte lead at the end', [0xf0, 0x9f, 0x98]],
  ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
  ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['latin-1 é', [0xe9]],
];
