import { SaxesParser } from 'saxes';

/** The few XML parts the format check reads (`[Content_Types].xml`, `_rels/.rels`, an ODF manifest). */

/** XML text from a part's bytes: UTF-8, or UTF-16 when a byte-order mark says so. */
export function xmlText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

/** Each element's local name and attributes, prefixes dropped; throws on XML that is not well-formed. */
export function elements(
  xml: string,
  visit: (name: string, attributes: Record<string, string>) => void,
): void {
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [key, value] of Object.entries(tag.attributes)) {
      if (typeof value === 'string') attributes[key.slice(key.indexOf(':') + 1)] = value;
    }
    visit(tag.name.slice(tag.name.indexOf(':') + 1), attributes);
  });
  parser.write(xml).close();
}
