/** Pixels of a page read for codes: 150 dpi resolves a 0.33 mm module in two pixels. */
export const READ_DPI = 150;
