import { SaxesParser } from 'saxes';

/**
 * The content type of an Open XML package's main part, found the way the packaging rules (OPC,
 * ECMA-376 part 2) and LibreOffice's own detection find it: the package relationship of type
 * `officeDocument` in `_rels/.rels` names the part, and `[Content_Types].xml` types it, by an
 * `Override` for that part name or else by the `Default` for its extension. Writers differ in how
 * they say it (Word writes an Override, others a Default for `xml`; prefixed element names, a
 * byte-order mark, UTF-16), and every way the rules allow is read.
 */

/** The relationship types of the main part: transitional and strict Open XML. */
const officeDocumentTypes = new Set([
  'http://schemas.openxmlformats.org/officedocument/2006/relationships/officedocument',
  'http://purl.oclc.org/ooxml/officedocument/relationships/officedocument',
]);

export interface ContentTypes {
  /** Lower-cased extension (no dot) → content type. */
  defaults: Map<string, string>;
  /** Lower-cased part name (with its leading slash) → content type. */
  overrides: Map<string, string>;
}

/** XML text from a part's bytes: UTF-8, or UTF-16 when a byte-order mark says so. */
export function xmlText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

/** Each element's local name and attributes, prefixes dropped; throws on XML that is not well-formed. */
function elements(xml: string, visit: (name: string, attributes: Record<string, string>) => void): void {
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

const contentType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/** Reads `[Content_Types].xml`; throws when it is not well-formed XML. */
export function readContentTypes(xml: string): ContentTypes {
  const types: ContentTypes = { defaults: new Map(), overrides: new Map() };
  elements(xml, (name, { Extension, PartName, ContentType }) => {
    if (ContentType === undefined) return;
    if (name === 'Default' && Extension !== undefined) {
      types.defaults.set(Extension.replace(/^\./, '').toLowerCase(), contentType(ContentType));
    } else if (name === 'Override' && PartName !== undefined) {
      types.overrides.set(partName(PartName), contentType(ContentType));
    }
  });
  return types;
}

/** A part name as the rules compare them: absolute, dot segments resolved, unescaped, any case. */
function partName(reference: string): string {
  let path: string;
  try {
    path = decodeURIComponent(new URL(reference.replace(/\\/g, '/'), 'http://package/').pathname);
  } catch {
    path = `/${reference.replace(/^\/+/, '')}`;
  }
  return path.toLowerCase();
}

/** The main part named by `_rels/.rels`, or undefined when it names none or cannot be read. */
export function mainPartName(relsXml: string): string | undefined {
  let target: string | undefined;
  try {
    elements(relsXml, (name, { Type, Target, TargetMode }) => {
      const internal = TargetMode === undefined || TargetMode.toLowerCase() !== 'external';
      if (
        target === undefined &&
        name === 'Relationship' &&
        internal &&
        Target &&
        officeDocumentTypes.has(Type?.trim().toLowerCase() ?? '')
      ) {
        target = Target;
      }
    });
  } catch {
    // A relationships part that is not XML names nothing; the content types may still tell.
  }
  return target === undefined ? undefined : partName(target);
}

/** The content type a part has: its Override, or else the Default for its extension. */
export function typeOfPart(types: ContentTypes, part: string): string | undefined {
  const extension = /\.([^./]+)$/.exec(part)?.[1];
  return types.overrides.get(part) ?? (extension === undefined ? undefined : types.defaults.get(extension));
}
