import CFB from 'cfb';
import { strToU8, type Zippable, zipSync } from 'fflate';

/**
 * Small office documents written part by part, so the tests need no committed binaries and no
 * office suite to make them: the fewest parts each format needs for LibreOffice to open it.
 */

const xmlHead = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const zip = (parts: Record<string, string | Uint8Array>): Buffer => {
  const files: Zippable = {};
  for (const [name, content] of Object.entries(parts)) {
    files[name] = typeof content === 'string' ? strToU8(content) : content;
  }
  return Buffer.from(zipSync(files));
};

const pkgRels = (type: string, target: string) =>
  `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>` +
  '</Relationships>';

const contentTypes = (overrides: Record<string, string>, xmlDefault = 'application/xml') =>
  `${xmlHead}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  `<Default Extension="xml" ContentType="${xmlDefault}"/>` +
  Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
    .join('') +
  '</Types>';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const docxMain = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';

export interface DocxOptions {
  /** Pictures linked (not embedded) from these URLs, as Word writes "Insert and Link". */
  linkedImageUrls?: readonly string[];
  /** An attached template at this URL (word/settings.xml). */
  templateUrl?: string;
  /** The main part's content type, to build a macro-enabled or mislabelled package. */
  mainContentType?: string;
  /**
   * How `[Content_Types].xml` types the main part: by an Override for its name (as Word writes), or
   * by the Default for the `xml` extension (as some other writers do).
   */
  mainTypedBy?: 'override' | 'default';
}

const linkedPicture = (rId: string, id: number) =>
  `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="${id}" name="Linked ${id}"/>` +
  '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">' +
  '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
  '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
  `<pic:nvPicPr><pic:cNvPr id="${id}" name="linked-${id}.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
  `<pic:blipFill><a:blip r:link="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
  '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm>' +
  '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>' +
  '</wp:inline></w:drawing></w:r></w:p>';

/** A Word document with one paragraph per line of `text`. */
export function makeDocx(text: string, options: DocxOptions = {}): Buffer {
  const paragraphs = text
    .split('\n')
    .map((line) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(line)}</w:t></w:r></w:p>`)
    .join('');
  const linked = options.linkedImageUrls ?? [];
  const picture = linked.map((_url, index) => linkedPicture(`rIdImage${index}`, index + 1)).join('');
  const document =
    `${xmlHead}<w:document xmlns:w="${W}" xmlns:r="${R}" ` +
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">' +
    `<w:body>${paragraphs}${picture}</w:body></w:document>`;
  const mainType = options.mainContentType ?? docxMain;
  const byDefault = options.mainTypedBy === 'default';
  const parts: Record<string, string> = {
    '[Content_Types].xml': contentTypes(
      {
        ...(byDefault ? {} : { '/word/document.xml': mainType }),
        ...(options.templateUrl
          ? {
              '/word/settings.xml':
                'application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml',
            }
          : {}),
      },
      byDefault ? mainType : undefined,
    ),
    '_rels/.rels': pkgRels('officeDocument', 'word/document.xml'),
    'word/document.xml': document,
  };
  const rels: string[] = [];
  linked.forEach((url, index) => {
    rels.push(
      `<Relationship Id="rIdImage${index}" Type="${R}/image" Target="${escapeXml(url)}" TargetMode="External"/>`,
    );
  });
  if (options.templateUrl) {
    rels.push(`<Relationship Id="rIdSettings" Type="${R}/settings" Target="settings.xml"/>`);
    parts['word/settings.xml'] =
      `${xmlHead}<w:settings xmlns:w="${W}" xmlns:r="${R}"><w:attachedTemplate r:id="rIdTemplate"/>` +
      '<w:linkStyles/></w:settings>';
    parts['word/_rels/settings.xml.rels'] =
      `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rIdTemplate" Type="${R}/attachedTemplate" Target="${escapeXml(options.templateUrl)}" TargetMode="External"/>` +
      '</Relationships>';
  }
  if (rels.length > 0) {
    parts['word/_rels/document.xml.rels'] =
      `${xmlHead}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`;
  }
  return zip(parts);
}

/** An Excel workbook of one sheet, one row per entry of `rows`, cells as inline strings. */
export function makeXlsx(rows: readonly (readonly string[])[]): Buffer {
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const cells = rows
    .map(
      (row, r) =>
        `<row r="${r + 1}">${row
          .map(
            (value, c) =>
              `<c r="${String.fromCharCode(65 + c)}${r + 1}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`,
          )
          .join('')}</row>`,
    )
    .join('');
  return zip({
    '[Content_Types].xml': contentTypes({
      '/xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      '/xl/worksheets/sheet1.xml':
        'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
    }),
    '_rels/.rels': pkgRels('officeDocument', 'xl/workbook.xml'),
    'xl/workbook.xml': `${xmlHead}<workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': pkgRels('worksheet', 'worksheets/sheet1.xml'),
    'xl/worksheets/sheet1.xml': `${xmlHead}<worksheet xmlns="${S}"><sheetData>${cells}</sheetData></worksheet>`,
  });
}

const odfNamespaces =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" ' +
  'xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dom="http://www.w3.org/2001/xml-events" ' +
  'xmlns:ooo="http://openoffice.org/2004/office"';

/** An OpenDocument package: `mimetype` stored first, the manifest, content.xml and `parts`. */
function odfPackage(
  kind: 'text' | 'spreadsheet',
  content: string,
  parts: Record<string, string> = {},
): Buffer {
  const mediaType = `application/vnd.oasis.opendocument.${kind}`;
  const manifest =
    `${xmlHead}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
    `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mediaType}"/>` +
    ['content.xml', ...Object.keys(parts)]
      .map((name) => `<manifest:file-entry manifest:full-path="${name}" manifest:media-type="text/xml"/>`)
      .join('') +
    '</manifest:manifest>';
  const files: Zippable = {
    mimetype: [strToU8(mediaType), { level: 0 }],
    'META-INF/manifest.xml': strToU8(manifest),
    'content.xml': strToU8(
      `${xmlHead}<office:document-content ${odfNamespaces} office:version="1.2">${content}</office:document-content>`,
    ),
  };
  for (const [name, value] of Object.entries(parts)) files[name] = strToU8(value);
  return Buffer.from(zipSync(files));
}

/** An OpenDocument text of one paragraph. */
export function makeOdt(text: string): Buffer {
  return odfPackage(
    'text',
    `<office:body><office:text><text:p>${escapeXml(text)}</text:p></office:text></office:body>`,
  );
}

/**
 * A document's Basic library: `Sub Main` and the cell function `MARKER()` both write `markerPath`,
 * so the file appears only if the office suite runs the document's macros. (Loaded through UNO
 * with macros allowed, LibreOffice 7.4 runs MARKER() and writes the file.)
 */
function basicLibrary(markerPath: string): Record<string, string> {
  const write = `  Dim n As Integer\n  n = FreeFile\n  Open "${markerPath}" For Output As #n\n  Print #n, "macro ran"\n  Close #n\n`;
  const module =
    `${xmlHead}<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">` +
    '<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">' +
    escapeXml(`Sub Main\n${write}End Sub\n\nFunction MARKER()\n${write}  MARKER = 7\nEnd Function\n`) +
    '</script:module>';
  const library =
    `${xmlHead}<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd">` +
    '<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false">' +
    '<library:element library:name="Module1"/></library:library>';
  const libraries =
    `${xmlHead}<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd">` +
    '<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink">' +
    '<library:library library:name="Standard" library:link="false"/></library:libraries>';
  return {
    'Basic/script-lc.xml': libraries,
    'Basic/Standard/script-lb.xml': library,
    'Basic/Standard/Module1.xml': module,
  };
}

/** Binds `Sub Main` to the document's load and load-finished events. */
const onLoad =
  '<office:scripts><office:event-listeners>' +
  ['dom:load', 'office:load-finished']
    .map(
      (event) =>
        `<script:event-listener script:language="ooo:script" script:event-name="${event}" ` +
        'xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document" xlink:type="simple"/>',
    )
    .join('') +
  '</office:event-listeners></office:scripts>';

/** An OpenDocument text whose macro runs on load, if macros run. */
export function makeOdtWithMacro(text: string, markerPath: string): Buffer {
  return odfPackage(
    'text',
    `${onLoad}<office:body><office:text><text:p>${escapeXml(text)}</text:p></office:text></office:body>`,
    basicLibrary(markerPath),
  );
}

/**
 * An OpenDocument spreadsheet whose second cell is `=MARKER()`, a Basic function of the document
 * (with no cached value, so it must be computed to be shown), and whose macro runs on load.
 */
export function makeOdsWithMacro(label: string, markerPath: string): Buffer {
  const row =
    `<table:table-row><table:table-cell office:value-type="string"><text:p>${escapeXml(label)}</text:p></table:table-cell>` +
    '<table:table-cell table:formula="of:=MARKER()"/></table:table-row>';
  return odfPackage(
    'spreadsheet',
    `${onLoad}<office:body><office:spreadsheet><table:table table:name="Sheet1">${row}</table:table></office:spreadsheet></office:body>`,
    basicLibrary(markerPath),
  );
}

/** A Rich Text Format document of one paragraph. */
export function makeRtf(text: string): Buffer {
  return Buffer.from(
    `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Carlito;}}\\f0\\fs24 ${text.replace(/[\\{}]/g, '\\$&')}\\par}`,
    'latin1',
  );
}

const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';

/** A PowerPoint deck of one slide holding `text` in a text box (no master, layout or theme). */
export function makePptx(text: string): Buffer {
  const box =
    '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Text"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>' +
    '<p:spPr><a:xfrm><a:off x="914400" y="914400"/><a:ext cx="7315200" cy="914400"/></a:xfrm>' +
    '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>' +
    `<p:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US" sz="2400"/><a:t>${escapeXml(text)}</a:t></a:r></a:p></p:txBody></p:sp>`;
  return zip({
    '[Content_Types].xml': contentTypes({
      '/ppt/presentation.xml':
        'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
      '/ppt/slides/slide1.xml': 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml',
    }),
    '_rels/.rels': pkgRels('officeDocument', 'ppt/presentation.xml'),
    'ppt/presentation.xml':
      `${xmlHead}<p:presentation xmlns:p="${P}" xmlns:r="${R}" xmlns:a="${A}">` +
      '<p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst>' +
      '<p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
    'ppt/_rels/presentation.xml.rels': pkgRels('slide', 'slides/slide1.xml'),
    'ppt/slides/slide1.xml':
      `${xmlHead}<p:sld xmlns:p="${P}" xmlns:r="${R}" xmlns:a="${A}"><p:cSld><p:spTree>` +
      '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>' +
      `${box}</p:spTree></p:cSld></p:sld>`,
  });
}

/**
 * A Word 6.0 document as Word 6.0 and 95 wrote them: a compound file whose WordDocument stream holds
 * everything, text and tables (there is no 0Table or 1Table stream, as Word 97 and later write). The
 * fewest fields of its file information block LibreOffice needs: the identifier of Word 6.0/95
 * files (0xA5DC) and the format version (0x65), where the text starts and ends, its length in
 * characters and the stream's length; the text follows in Windows-1252, one paragraph ending in CR.
 */
export function makeWord6Doc(text: string): Buffer {
  const body = Buffer.from(`${text}\r`, 'latin1');
  const textStart = 0x300;
  const stream = Buffer.alloc(textStart + body.length);
  stream.writeUInt16LE(0xa5dc, 0); // wIdent
  stream.writeUInt16LE(0x65, 2); // nFib: Word 6.0
  stream.writeUInt16LE(0x409, 6); // lid: English (US)
  stream.writeUInt16LE(0x65, 12); // nFibBack
  stream.writeUInt32LE(textStart, 24); // fcMin
  stream.writeUInt32LE(textStart + body.length, 28); // fcMac
  stream.writeUInt32LE(stream.length, 32); // cbMac
  stream.writeUInt32LE(body.length, 52); // ccpText
  body.copy(stream, textStart);
  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, '/WordDocument', stream);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}
