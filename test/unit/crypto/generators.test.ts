import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CharacterClass, characterClasses, generatePassword } from '#shared/crypto/password-generate.ts';
import { randomBytesEncoded } from '#shared/crypto/random-bytes.ts';
import { generateUuids } from '#shared/crypto/uuid.ts';

describe('generateUuids', () => {
  it('makes version 4 UUIDs with the RFC 9562 variant', () => {
    const uuids = generateUuids(4, 100);
    expect(uuids).toHaveLength(100);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(uuids).size).toBe(100);
  });

  it('makes version 7 UUIDs that carry the time and sort in creation order', () => {
    const before = Date.now();
    const uuids = generateUuids(7, 100);
    const after = Date.now();
    for (const uuid of uuids) {
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const millis = Number.parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);
      expect(millis).toBeGreaterThanOrEqual(before);
      expect(millis).toBeLessThanOrEqual(after + 1);
    }
    expect([...uuids].sort()).toEqual(uuids);
    expect(new Set(uuids).size).toBe(100);
  });
});

describe('randomBytesEncoded', () => {
  it.each([
    ['hex', /^[0-9a-f]{64}$/],
    ['base64', /^[A-Za-z0-9+/]{43}=$/],
    ['base64url', /^[A-Za-z0-9_-]{43}$/],
  ] as const)('writes 32 bytes as %s', (encoding, pattern) => {
    const value = randomBytesEncoded(32, encoding);
    expect(value).toMatch(pattern);
    expect(Buffer.from(value, encoding)).toHaveLength(32);
    expect(randomBytesEncoded(32, encoding)).not.toBe(value);
  });

  it('gives exactly the number of bytes asked for', () => {
    for (const size of [1, 2, 3, 1023, 1024])
      expect(Buffer.from(randomBytesEncoded(size, 'base64url'), 'base64url')).toHaveLength(size);
  });
});

describe('generatePassword', () => {
  const classNames = Object.keys(characterClasses) as CharacterClass[];

  it('has the length asked for, every enabled class and nothing else', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 128 }),
        fc.subarray(classNames, { minLength: 1 }),
        (length, classes) => {
          const password = generatePassword(length, classes);
          expect(password).toHaveLength(length);
          for (const name of classNames) {
            const present = [...password].some((c) => characterClasses[name].includes(c));
            expect(present, name).toBe(classes.includes(name));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('draws characters evenly (no modulo bias)', () => {
    // 62 letters and digits; 2000 passwords of 128 characters: each character is expected 4129 times.
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i += 1) {
      for (const c of generatePassword(128, ['uppercase', 'lowercase', 'digits']))
        counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (2000 * 128) / 62;
    const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: the 99.99th percentile is about 117.
    expect(chiSquare).toBeLessThan(117);
  });

  it('refuses rules no password can meet', () => {
    expect(() => generatePassword(8, [])).toThrow(RangeError);
  });
});
