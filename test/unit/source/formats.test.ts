import { describe, expect, it } from 'vitest';
import { canonicalFormat, isSourceFormat } from '#shared/source/formats.ts';

describe('isSourceFormat', () => {
  it('knows the format names the service reads, exactly as spelled', () => {
    expect(isSourceFormat('png')).toBe(true);
    expect(isSourceFormat('pdf')).toBe(true);
    expect(isSourceFormat('PNG')).toBe(false);
    expect(isSourceFormat('exe')).toBe(false);
    expect(isSourceFormat('')).toBe(false);
  });

  it('is false for anything that is not a string', () => {
    expect(isSourceFormat(undefined)).toBe(false);
    expect(isSourceFormat(['png'])).toBe(false);
    expect(isSourceFormat({ toString: () => 'png' })).toBe(false);
  });
});

describe('canonicalFormat', () => {
  it('turns an alias in any case into the canonical name', () => {
    expect(canonicalFormat('jpeg')).toBe('jpg');
    expect(canonicalFormat('JPEG')).toBe('jpg');
    expect(canonicalFormat('Tif')).toBe('tiff');
    expect(canonicalFormat('tif')).toBe('tiff');
    expect(canonicalFormat('heif')).toBe('heic');
  });

  it('lowercases other names and keeps them, even the names of Object.prototype', () => {
    expect(canonicalFormat('PNG')).toBe('png');
    expect(canonicalFormat('webp')).toBe('webp');
    expect(canonicalFormat('exe')).toBe('exe');
    expect(canonicalFormat('toString')).toBe('tostring');
    expect(canonicalFormat('constructor')).toBe('constructor');
    expect(canonicalFormat('__proto__')).toBe('__proto__');
  });
});
