import { SaxesParser } from 'saxes';
import { ApiError } from '#shared/errors.ts';
import { svgLimits } from '#shared/image/limits.ts';
import { checkDataImage, newImageBudget, type SvgImageBudget } from '#shared/image/svg-data-images.ts';
import { filterTarget, SvgReferences, useTarget } from '#shared/image/svg-references.ts';

const XINCLUDE = 'http://www.w3.org/2001/XInclude';
const XML = 'http://www.w3.org/XML/1998/namespace';

/** A reference that stays inside the document: a fragment (`#id`) or inline data. */
const isInternal = (reference: string) => {
  const value = reference.trim();
  return value === '' || value.startsWith('#') || /^data:/i.test(value);
};

const refused = (what: string) =>
  new ApiError(
    'invalid_source_file',
    `The SVG ${what}; only self-contained SVGs are rendered (inline data: URLs and #fragments are fine).`,
  );

const tooLarge = (what: string) => new ApiError('invalid_source_file', `The SVG ${what}.`);

/** Every `url(...)` target in CSS or an attribute, and whether the text imports style sheets. */
function checkCss(text: string): void {
  if (/@import/i.test(text)) throw refused('imports an external style sheet');
  for (const match of text.matchAll(/url\(\s*(['"]?)([^'")]*)\1\s*\)/gi)) {
    if (!isInternal(match[2] ?? '')) throw refused('refers to an external resource');
  }
}

const splitName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0
    ? { prefix: '', local: name }
    : { prefix: name.slice(0, colon), local: name.slice(colon + 1) };
};

/**
 * Namespace bindings in scope, one stack of URIs per prefix: resolving a prefix costs the same at
 * any depth. (saxes' own namespace mode walks every open element to resolve one, which makes a
 * deeply nested document quadratic.)
 */
class NamespaceScopes {
  private readonly bindings = new Map<string, string[]>([['xml', [XML]]]);
  /** The prefixes each open element declared, innermost last. */
  private readonly declared: string[][] = [];

  open(attributes: Readonly<Record<string, string>>): void {
    const prefixes: string[] = [];
    for (const [name, value] of Object.entries(attributes)) {
      const prefix = name === 'xmlns' ? '' : name.startsWith('xmlns:') ? name.slice(6) : undefined;
      if (prefix === undefined) continue;
      const stack = this.bindings.get(prefix) ?? [];
      stack.push(value);
      this.bindings.set(prefix, stack);
      prefixes.push(prefix);
    }
    this.declared.push(prefixes);
  }

  close(): void {
    for (const prefix of this.declared.pop() ?? []) this.bindings.get(prefix)?.pop();
  }

  /** The URI bound to a prefix; undefined when it is not bound ('' is the default namespace). */
  resolve(prefix: string): string | undefined {
    return this.bindings.get(prefix)?.at(-1);
  }
}

/**
 * Reads the SVG as strict XML before any renderer sees it and refuses what could reach outside the
 * document: entity declarations (no entity is ever expanded), external style sheets, XInclude, and
 * links or CSS urls to anything but a fragment or inline data. The renderer is given no base path
 * and no network either; this check makes the refusal explicit instead of a silently blank image.
 * Documents nested deeper or holding more elements than `svgLimits` are refused as soon as the
 * parser meets the element past the limit. The work of rendering is bounded too: inline `data:`
 * images by the pixels their headers declare, at any nesting of SVGs (svg-data-images.ts), and
 * `<use>` references by the elements they draw once expanded (svg-references.ts).
 */
export function assertSelfContainedSvg(
  text: string,
  images: SvgImageBudget = newImageBudget(),
): { filterPrimitives: number } {
  const parser = new SaxesParser();
  const scopes = new NamespaceScopes();
  const references = new SvgReferences(svgLimits.maxElements, svgLimits.maxDepth);
  /** The `<filter>` being read: its id and depth, whose direct children are its primitives. */
  let filter: { id: string; depth: number } | undefined;
  let nestedPrimitives = 0;
  let depth = 0;
  let elements = 0;
  let inStyle = 0;
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
  };
  parser.on('error', fail);
  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype)) throw refused('declares XML entities');
  });
  parser.on('processinginstruction', ({ target }) => {
    if (target.toLowerCase() === 'xml-stylesheet') throw refused('links an external style sheet');
  });
  parser.on('opentag', (tag) => {
    depth += 1;
    elements += 1;
    if (depth > svgLimits.maxDepth) {
      throw tooLarge(`nests elements more than ${svgLimits.maxDepth} levels deep, the most accepted`);
    }
    if (elements > svgLimits.maxElements) {
      throw tooLarge(`holds more than ${svgLimits.maxElements} elements, the most accepted`);
    }
    scopes.open(tag.attributes);
    const name = splitName(tag.name);
    const uri = scopes.resolve(name.prefix);
    if (name.prefix !== '' && uri === undefined) fail(new Error(`unbound prefix ${name.prefix}`));
    if (uri === XINCLUDE) throw refused('includes other files (XInclude)');
    if (name.local === 'style') inStyle += 1;
    if (filter && depth === filter.depth + 1) {
      references.primitives.set(filter.id, (references.primitives.get(filter.id) ?? 0) + 1);
    }
    if (name.local === 'filter' && tag.attributes.id !== undefined) {
      filter = { id: tag.attributes.id, depth };
      references.primitives.set(filter.id, 0);
    }
    let use: string | undefined;
    for (const [attributeName, value] of Object.entries(tag.attributes)) {
      const attribute = splitName(attributeName);
      if (attributeName === 'xmlns' || attribute.prefix === 'xmlns') continue;
      if (attribute.prefix !== '' && scopes.resolve(attribute.prefix) === undefined) {
        fail(new Error(`unbound prefix ${attribute.prefix}`));
      }
      if (attribute.local === 'href' && !isInternal(value)) throw refused('refers to an external resource');
      if (attribute.local === 'href' && /^\s*data:/i.test(value)) {
        nestedPrimitives += checkDataImage(value.trim(), images, assertSelfContainedSvg);
      }
      if (attribute.local === 'href' && name.local === 'use') use = useTarget(value);
      checkCss(value);
    }
    const { id, style, filter: filterAttribute } = tag.attributes;
    const styleFilter = style === undefined ? undefined : /filter\s*:([^;]*)/i.exec(style)?.[1];
    const applied = styleFilter ?? filterAttribute;
    references.open(id, use, applied === undefined ? undefined : filterTarget(applied));
  });
  parser.on('closetag', (tag) => {
    if (filter && depth === filter.depth) filter = undefined;
    depth -= 1;
    scopes.close();
    references.close();
    if (splitName(tag.name).local === 'style') inStyle -= 1;
  });
  const styleText = (text: string) => {
    if (inStyle === 0) return;
    checkCss(text);
    for (const match of text.matchAll(/filter\s*:\s*url\(\s*['"]?#([^'")\s]+)/gi)) {
      references.styledFilters.add(match[1]!);
    }
  };
  parser.on('text', styleText);
  parser.on('cdata', styleText);
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    fail(error);
  }
  if (failure !== undefined) {
    throw new ApiError(
      'invalid_source_file',
      'The SVG is not well-formed XML: it is damaged or incomplete.',
      {
        cause: failure,
      },
    );
  }
  return { filterPrimitives: references.assertBounded() + nestedPrimitives };
}
