import { ApiError } from '#shared/errors.ts';

/** Codes of 12 bits at most: a table of 4096 entries (the GIF specification's). */
const TABLE_SIZE = 4096;

/**
 * A frame's LZW data made safe for gifuct-js's decoder, which trusts it in two ways that a hostile
 * file turns into a hang: a minimum code size of 12 or more has it fill a table of up to 2^31
 * entries, and a first code (at the start or after a clear code) that names the entry about to be
 * defined makes that entry its own prefix, so expanding it never ends (and grows memory until the
 * process dies). The codes are read here exactly as gifuct-js reads them (same code sizes, same
 * table growth, bytes past the end read as 0); the first such code is replaced by the end code,
 * where browsers stop decoding the frame too. Data without one is answered as it is.
 */
export function endAtUndefinedCode(minCodeSize: number, data: ArrayLike<number>): ArrayLike<number> {
  if (!(minCodeSize >= 0 && minCodeSize < 12)) {
    throw new ApiError(
      'invalid_source_file',
      `A frame of the GIF declares LZW codes of ${minCodeSize + 1} bits; GIF codes have at most 12.`,
    );
  }
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  let size = minCodeSize + 1;
  let mask = (1 << size) - 1;
  let available = clear + 2;
  let first = true;
  let datum = 0;
  let bits = 0;
  let next = 0;
  // Once a code starts past the data, every code is 0 (a colour index): nothing more to look for.
  while ((next << 3) - bits < data.length << 3) {
    if (bits < size) {
      datum += (data[next] ?? 0) << bits;
      bits += 8;
      next += 1;
      continue;
    }
    const at = (next << 3) - bits;
    const code = datum & mask;
    datum >>= size;
    bits -= size;
    if (code > available || code === end) return data;
    if (code === clear) {
      size = minCodeSize + 1;
      mask = (1 << size) - 1;
      available = clear + 2;
      first = true;
    } else if (first) {
      if (code === available) return withCode(data, at, size, end);
      first = false;
    } else if (available < TABLE_SIZE) {
      available += 1;
      if ((available & mask) === 0 && available < TABLE_SIZE) {
        size += 1;
        mask += available;
      }
    }
  }
  return data;
}

/** A copy of `data` (two bytes longer, for a code that runs past its end) with `code` at bit `at`. */
function withCode(data: ArrayLike<number>, at: number, size: number, code: number): Uint8Array {
  const copy = new Uint8Array(data.length + 2);
  copy.set(data);
  for (let bit = 0; bit < size; bit += 1) {
    const byte = (at + bit) >> 3;
    const mask = 1 << ((at + bit) & 7);
    copy[byte] = code & (1 << bit) ? copy[byte]! | mask : copy[byte]! & ~mask;
  }
  return copy;
}
