/** The document information an XMP packet states, read from the Info dictionary. */
export interface XmpInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string[];
  creator?: string;
  producer?: string;
  creationDate?: Date;
  modDate?: Date;
}

/** Characters XML 1.0 admits (tab, line feed, carriage return and from space on), others dropped. */
const escapeXml = (text: string): string =>
  text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const alt = (name: string, text: string) =>
  `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(text)}</rdf:li></rdf:Alt></${name}>`;
const list = (name: string, kind: 'Seq' | 'Bag', items: readonly string[]) =>
  `<${name}><rdf:${kind}>${items.map((item) => `<rdf:li>${escapeXml(item)}</rdf:li>`).join('')}</rdf:${kind}></${name}>`;
const simple = (name: string, text: string) => `<${name}>${escapeXml(text)}</${name}>`;

/**
 * An XMP packet (Dublin Core, XMP basic and Adobe PDF schemas) stating exactly what `info` holds,
 * as PDF 2.0 maps the Info entries to XMP properties; absent entries are absent here too.
 */
export function xmpPacket(info: XmpInfo): string {
  const properties = [
    info.title !== undefined && alt('dc:title', info.title),
    info.author !== undefined && list('dc:creator', 'Seq', [info.author]),
    info.subject !== undefined && alt('dc:description', info.subject),
    info.keywords !== undefined && list('dc:subject', 'Bag', info.keywords),
    info.keywords !== undefined && simple('pdf:Keywords', info.keywords.join(', ')),
    info.producer !== undefined && simple('pdf:Producer', info.producer),
    info.creator !== undefined && simple('xmp:CreatorTool', info.creator),
    info.creationDate !== undefined && simple('xmp:CreateDate', info.creationDate.toISOString()),
    info.modDate !== undefined && simple('xmp:ModifyDate', info.modDate.toISOString()),
  ].filter((property): property is string => property !== false);
  return [
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">',
    ...properties,
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('\n');
}
