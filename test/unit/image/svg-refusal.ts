import { ApiError } from '#shared/errors.ts';
import { assertSelfContainedSvg } from '#shared/image/svg-guard.ts';

/** How the SVG guard answers a document: `accepted`, or the refusal's code and message. */
export function svgRefusal(text: string): string {
  try {
    assertSelfContainedSvg(text);
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}
