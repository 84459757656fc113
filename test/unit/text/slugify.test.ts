import { describe, expect, it } from 'vitest';
import { slugify } from '#shared/text/slugify.ts';

const defaults = { separator: '-', lowercase: true };

describe('slugify', () => {
  it.each([
    ['Héllo Wörld!', 'hello-world'],
    ['Straße über Äpfel', 'strasse-uber-apfel'],
    ['Ça va, garçon? Où est l’hôtel', 'ca-va-garcon-ou-est-l-hotel'],
    ['Ærøskøbing Ålesund', 'aeroskobing-alesund'],
    ['Привет, мир', 'privet-mir'],
    ['Жёлтый Москва', 'zhyoltiy-moskva'],
    ['  --Already--slugged--  ', 'already-slugged'],
    ['fooBar 2024', 'foobar-2024'],
  ])('%j → %j', (text, slug) => {
    expect(slugify(text, defaults)).toBe(slug);
  });

  it('applies a language’s own rules when a locale is given', () => {
    expect(slugify('Wörld Straße', { ...defaults, locale: 'de' })).toBe('woerld-strasse');
    expect(slugify('Räksmörgås', { ...defaults, locale: 'sv' })).toBe('raksmorgas');
    expect(slugify('Blåbærsyltetøy', { ...defaults, locale: 'da' })).toBe('blaabaersyltetoey');
  });

  it('keeps case, uses another separator, and cuts without a dangling separator', () => {
    expect(slugify('Hello World', { separator: '_', lowercase: false })).toBe('Hello_World');
    expect(slugify('hello wonderful world', { ...defaults, maxLength: 16 })).toBe('hello-wonderful');
    expect(slugify('hello wonderful world', { ...defaults, maxLength: 6 })).toBe('hello');
  });

  it.each([
    // A cut inside a separator must not leave half of it.
    ['hello world', '--', 6, 'hello'],
    ['hello world', '--', 7, 'hello'],
    ['hello world', '--', 12, 'hello--world'],
    ['hello wonderful world', '-', 10, 'hello'],
    ['hello wonderful world', '_.~', 18, 'hello_.~wonderful'],
    // A first word longer than the limit is the only one cut inside.
    ['incomprehensibilities abound', '-', 8, 'incompre'],
  ])('%j with separator %j cut to %i → %j', (text, separator, maxLength, slug) => {
    expect(slugify(text, { separator, lowercase: true, maxLength })).toBe(slug);
  });

  it('keeps whole words and never ends with any part of a separator, whatever the limit', () => {
    const text = 'one two three four five';
    for (const separator of ['-', '--', '-_.', '~']) {
      const full = slugify(text, { separator, lowercase: true });
      // From the length of the first word on, every cut falls between whole words.
      for (let maxLength = 3; maxLength <= 30; maxLength += 1) {
        const slug = slugify(text, { separator, lowercase: true, maxLength });
        expect(slug.length).toBeLessThanOrEqual(maxLength);
        expect(slug).toMatch(/[a-z0-9]$/);
        expect(full === slug || full.startsWith(`${slug}${separator}`), `${separator} ${maxLength}`).toBe(
          true,
        );
      }
    }
  });

  it('refuses a text with no letter or digit to keep', () => {
    expect(() => slugify('!!! ???', defaults)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: 'text: has no letter or digit to make a slug of.',
      }),
    );
  });
});
