import { describe, expect, it } from 'vitest';
import { isSourceFormat } from '#shared/source/formats.ts';

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
