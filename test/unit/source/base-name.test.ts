import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseNameOf } from '#shared/source/base-name.ts';
import { formatBytes } from '#shared/units.ts';

describe('baseNameOf', () => {
  it.each([
    ['https://example.com/photos/holiday.jpg', 'holiday'],
    ['https://example.com/photos/holiday.final.jpg', 'holiday.final'],
    ['https://example.com/report', 'report'],
    ['https://example.com/a/b/', 'file'],
    ['https://example.com/', 'file'],
    ['https://example.com', 'file'],
    ['https://example.com/hello%20w%C3%B6rld.png', 'hello-world'],
    ['https://example.com/%E4%BD%A0%E5%A5%BD.png', 'file'],
    ['https://example.com/..%2F..%2Fetc%2Fpasswd', 'passwd'],
    ['https://example.com/.hidden', 'hidden'],
    ['https://example.com/a%ZZb.png', 'a-ZZb'],
    ['https://example.com/x.png?name=evil.exe#frag', 'x'],
    ['https://example.com/quote%22and%3Bsemicolon.pdf', 'quote-and-semicolon'],
  ])('%s → %s', (url, name) => {
    expect(baseNameOf(new URL(url))).toBe(name);
  });

  it('caps the length', () => {
    expect(baseNameOf(new URL(`https://example.com/${'a'.repeat(500)}.png`))).toHaveLength(100);
  });

  it('always gives a safe, non-empty file name that cannot be hidden or climb folders', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.string(), (path, extra) => {
        const name = baseNameOf(new URL(`https://example.com${path}/${encodeURIComponent(extra)}`));
        expect(name).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/);
        expect(name.endsWith('.')).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [999, '999 bytes'],
    [1_000, '1 kB'],
    [1_500, '1.5 kB'],
    [20_000_000, '20 MB'],
    [200_000_000, '200 MB'],
    [1_000_000_000, '1 GB'],
  ])('%d → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
