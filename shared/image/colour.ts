import Color from 'color';

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

export const white: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };
export const transparent: Rgba = { r: 0, g: 0, b: 0, alpha: 0 };

/** The colour without its transparency, for targets that hold none. */
export const opaque = (colour: Rgba): Rgba => ({ ...colour, alpha: 1 });
