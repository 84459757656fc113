import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cssColourPattern, parseCssColour } from '#shared/image/colour.ts';

/** The pattern openapi.yaml gives colour fields must admit only texts the service reads as colours. */
describe('the CSS colour pattern of the document', () => {
  const pattern = new RegExp(cssColourPattern);

  it('admits only colours parseCssColour reads', () => {
    fc.assert(
      fc.property(fc.stringMatching(pattern), (text) => {
        expect(parseCssColour(text), text).toBeDefined();
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    '#fff',
    '#ffffff80',
    'navy',
    'transparent',
    'rgb(0 0 0 / 50%)',
    'rgba(0, 0, 0, 0.5)',
    'hsl(120, 50%, 50%)',
  ])('admits %s, an example of the API', (text) => {
    expect(pattern.test(text)).toBe(true);
  });

  it.each(['not-a-colour', '#12345', 'rgb(foo)', 'hsl(120,50,50)', 'currentcolor'])(
    'refuses %s, which the service refuses',
    (text) => {
      expect(parseCssColour(text)).toBeUndefined();
      expect(pattern.test(text)).toBe(false);
    },
  );
});
