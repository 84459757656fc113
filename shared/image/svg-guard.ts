import { SaxesParser } from 'saxes';
import { HttpError } from '#shared/http/errors.ts';

const XINCLUDE = 'http://www.w3.org/2001/XInclude';

/** A reference that stays inside the document: a fragment (`#id`) or inline data. */
const isInternal = (reference: string) => {
  const value = reference.trim();
  return value === '' || value.startsWith('#') || /^data:/i.test(value);
};

const refused = (what: string) =>
  new HttpError(
    'invalid_source_file',
    `The SVG ${what}; only self-contained SVGs are rendered (inline data: URLs and #fragments are fine).`,
  );

/** Every `url(...)` target in CSS or an attribute, and whether the text imports style sheets. */
function checkCss(text: string): void {
  if (/@import/i.test(text)) throw refused('imports an external style sheet');
  for (const match of text.matchAll(/url\(\s*(['"]?)([^'")]*)\1\s*\)/gi)) {
    if (!isInternal(match[2] ?? '')) throw refused('refers to an external resource');
  }
}

/**
 * Reads the SVG as strict XML before any renderer sees it and refuses what could reach outside the
 * document: entity declarations (no entity is ever expanded), external style sheets, XInclude, and
 * links or CSS urls to anything but a fragment or inline data. The renderer is given no base path
 * and no network either; this check makes the refusal explicit instead of a silently blank image.
 */
export function assertSelfContainedSvg(text: string): void {
  const parser = new SaxesParser({ xmlns: true });
  let inStyle = 0;
  let failure: unknown;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) throw refused('declares XML entities');
  });
  parser.on('processinginstruction', ({ target }) => {
    if (target.toLowerCase() === 'xml-stylesheet') throw refused('links an external style sheet');
  });
  parser.on('opentag', (tag) => {
    if (tag.uri === XINCLUDE) throw refused('includes other files (XInclude)');
    if (tag.local === 'style') inStyle += 1;
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.local === 'href' && !isInternal(attribute.value)) {
        throw refused('refers to an external resource');
      }
      checkCss(attribute.value);
    }
  });
  parser.on('closetag', (tag) => {
    if (tag.local === 'style') inStyle -= 1;
  });
  const styleText = (text: string) => {
    if (inStyle > 0) checkCss(text);
  };
  parser.on('text', styleText);
  parser.on('cdata', styleText);
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof HttpError) throw error;
    failure ??= error;
  }
  if (failure !== undefined) {
    throw new HttpError(
      'invalid_source_file',
      'The SVG is not well-formed XML: it is damaged or incomplete.',
      {
        cause: failure,
      },
    );
  }
}
