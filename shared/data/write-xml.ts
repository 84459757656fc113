import { XMLBuilder } from 'fast-xml-parser';
import { NAME_RE } from 'xmlchars/xml/1.0/ed5.js';
import { ApiError } from '#shared/errors.ts';

const attributePrefix = '@';
const textKey = '#text';

/**
 * Data as an XML document, the mirror of readXml: `@name` keys become attributes, `#text` text, an
 * array repeats its element. An object with exactly one key names the root element; anything else
 * is wrapped in `<root>`, an array at the top as `<root><item>…</item></root>`.
 */
export function writeXml(data: unknown, indent: number): string {
  const document = asDocument(data);
  checkNames(document);
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: attributePrefix,
    textNodeName: textKey,
    format: indent > 0,
    indentBy: ' '.repeat(indent),
    suppressBooleanAttributes: false,
    processEntities: true,
  });
  const body = builder.build(document) as string;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}

function asDocument(data: unknown): Record<string, unknown> {
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const keys = Object.keys(data);
    const only = keys[0];
    if (keys.length === 1 && only && !only.startsWith(attributePrefix) && only !== textKey) {
      const value = (data as Record<string, unknown>)[only];
      if (!Array.isArray(value)) return data as Record<string, unknown>;
    }
    return { root: data };
  }
  return { root: Array.isArray(data) ? { item: data } : data };
}

/** Every key must make a well-formed name, and no array may sit right inside another. */
function checkNames(document: Record<string, unknown>): void {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    for (const [key, child] of Object.entries(value)) {
      if (Array.isArray(value)) {
        if (Array.isArray(child)) {
          throw new ApiError('invalid_input', 'XML cannot hold an array right inside another array.');
        }
      } else if (key !== textKey) {
        const name = key.startsWith(attributePrefix) ? key.slice(attributePrefix.length) : key;
        if (!NAME_RE.test(name)) {
          throw new ApiError(
            'invalid_input',
            `"${key.slice(0, 80)}" cannot be an XML element or attribute name.`,
          );
        }
        if (key.startsWith(attributePrefix) && child !== null && typeof child === 'object') {
          throw new ApiError(
            'invalid_input',
            `The attribute "${key.slice(0, 80)}" holds an object or array.`,
          );
        }
      }
      stack.push(child);
    }
  }
}
