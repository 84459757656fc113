import Color from 'color';
import colorNames from 'color-name';

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0 (transparent) to 1 (opaque). */
  alpha: number;
}

/**
 * A CSS colour (`#fff`, `#ff000080`, `rgb(…)`, `hsl(…)`, `hwb(…)`, a named colour, `transparent`)
 * as RGBA; undefined when the text is none.
 */
export function parseCssColour(text: string): Rgba | undefined {
  try {
    const colour = Color(text.trim());
    const [r = 0, g = 0, b = 0] = colour.rgb().array();
    return { r: Math.round(r), g: Math.round(g), b: Math.round(b), alpha: colour.alpha() };
  } catch {
    return undefined;
  }
}

const byte = '\\d{1,3}';
const percent = '\\d{1,3}(?:\\.\\d{1,3})?%';
const hue = '\\d{1,3}(?:deg)?';
const alpha = '(?:0|1|0?\\.\\d{1,3})';
const rgbAlpha = `(?:${alpha}|\\d{1,2}%)`;
const functions = [
  `rgba?\\( *(?:${byte} *, *${byte} *, *${byte}|${byte} +${byte} +${byte})(?: *[,/] *${rgbAlpha})? *\\)`,
  `rgba?\\( *${percent} *,? *${percent} *,? *${percent}(?: *[,/] *${rgbAlpha})? *\\)`,
  `hsla?\\( *${hue} *,? *${percent} *,? *${percent}(?: *[,/] *${alpha})? *\\)`,
  `hwb\\( *${hue} *[ ,] *${percent} *[ ,] *${percent}(?: *[ ,] *${alpha})? *\\)`,
];

/**
 * The CSS colours the document gives as the pattern of colour fields, every one of which
 * `parseCssColour` reads: hex (3, 4, 6 or 8 digits), rgb()/rgba() of bytes or percentages,
 * hsl()/hsla() and hwb(), with an optional alpha, and the named colours, in lower case. The
 * service reads more spellings (upper case, exponents, other white space); the pattern keeps to
 * the plain ones so that no text it admits is refused.
 */
export const cssColourPattern = `^(?:#(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})|${functions.join('|')}|${[
  'transparent',
  ...Object.keys(colorNames),
].join('|')})$`;

export const white: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };
export const transparent: Rgba = { r: 0, g: 0, b: 0, alpha: 0 };

/** The colour without its transparency, for targets that hold none. */
export const opaque = (colour: Rgba): Rgba => ({ ...colour, alpha: 1 });
