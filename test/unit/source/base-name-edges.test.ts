import { describe, expect, it } from 'vitest';
import { baseNameOf } from '#shared/source/base-name.ts';

const nameOf = (path: string) => baseNameOf(new URL(`https://example.com/${path}`));

describe('baseNameOf edges', () => {
  it('turns a run of characters it drops into one dash', () => {
    expect(nameOf('my%20%20file%21%21.png')).toBe('my-file');
  });

  it('leaves no run of dots or dashes where the 100-character cut falls', () => {
    expect(nameOf(`${'a'.repeat(98)}..${'b'.repeat(10)}.png`)).toBe('a'.repeat(98));
    expect(nameOf(`${'a'.repeat(97)}-.-${'b'.repeat(10)}.png`)).toBe('a'.repeat(97));
  });
});
