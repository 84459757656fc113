import { elements } from '#shared/documents/office-xml.ts';

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
