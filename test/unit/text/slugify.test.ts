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
});
