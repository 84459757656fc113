import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import CFB from 'cfb';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyOfficeDocument } from '#shared/documents/office-format.ts';
import { zipBounds } from '#shared/documents/office-limits.ts';
import { failure } from '../../support/http-error.ts';
import { makeDocx, makeOdt, makePptx, makeRtf, makeXlsx } from '../../support/office-documents.ts';
import { declaredBomb, embedding, lyingBomb, manyEntries, ratioBomb } from '../../support/zip-bombs.ts';

let dir = '';
let count = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'office-format-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function identify(bytes: Uint8Array) {
  count += 1;
  const path = join(dir, `file-${count}`);
  await writeFile(path, bytes);
  return identifyOfficeDocument(path);
}

/** A compound file holding one stream per name, as the legacy Office formats are. */
function compoundFile(...streams: string[]): Buffer {
  const container = CFB.utils.cfb_new();
  for (const name of streams) CFB.utils.cfb_add(container, `/${name}`, Buffer.from('stream content'));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

describe('identifyOfficeDocument: the format from the bytes', () => {
  it.each([
    ['docx', () => makeDocx('Hello')],
    ['xlsx', () => makeXlsx([['a', 'b']])],
    ['pptx', () => makePptx('Slide')],
    ['odt', () => makeOdt('Hello')],
    ['rtf', () => makeRtf('Hello')],
    ['doc', () => compoundFile('WordDocument', '1Table')],
    ['xls', () => compoundFile('Workbook')],
    ['xls', () => compoundFile('Book')],
    ['ppt', () => compoundFile('PowerPoint Document', 'Current User')],
  ])('reads %s', async (format, make) => {
    expect((await identify(make())).format).toBe(format);
  });

  it('reads ODF spreadsheets and presentations by their mimetype part', async () => {
    const odf = (type: string) =>
      zipSync({
        mimetype: [strToU8(`application/vnd.oasis.opendocument.${type}`), { level: 0 }],
        'content.xml': strToU8('<office:document-content/>'),
      });
    expect((await identify(odf('spreadsheet'))).format).toBe('ods');
    expect((await identify(odf('presentation'))).format).toBe('odp');
  });
});

/** A ZIP package of the given parts (Open XML, OpenDocument), built part by part. */
function ooxmlPackage(parts: Record<string, string | Uint8Array>): Buffer {
  const files = Object.fromEntries(
    Object.entries(parts).map(([name, content]) => [
      name,
      typeof content === 'string' ? strToU8(content) : content,
    ]),
  );
  return Buffer.from(zipSync(files));
}

const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const mainRel = (
  target: string,
  type = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument',
) =>
  `<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${type}" Target="${target}"/></Relationships>`;
const docxMain = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const xlsxMain = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';

describe('identifyOfficeDocument: as lenient as LibreOffice in what it reads', () => {
  it('reads a docx whose main part is typed by the Default of its extension, not by an Override', async () => {
    expect(await identify(makeDocx('Hello', { mainTypedBy: 'default' }))).toEqual({ format: 'docx' });
  });

  it('finds the main part through _rels/.rels, relative or absolute, in any case, and types it by that part', async () => {
    const types =
      `<Types xmlns="${CT}"><Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/XL/Workbook.XML" ContentType="${xlsxMain}"/>` +
      // A second main type, of a part nothing points to: the relationship decides, as in LibreOffice.
      `<Override PartName="/word/document.xml" ContentType="${docxMain}"/></Types>`;
    for (const target of ['xl/workbook.xml', '/xl/workbook.xml', './xl/../xl/workbook.xml']) {
      const bytes = ooxmlPackage({ '[Content_Types].xml': types, '_rels/.rels': mainRel(target) });
      expect(await identify(bytes)).toEqual({ format: 'xlsx' });
    }
    const strict = ooxmlPackage({
      '[Content_Types].xml': types,
      '_rels/.rels': mainRel(
        'xl/workbook.xml',
        'http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument',
      ),
    });
    expect((await identify(strict)).format).toBe('xlsx');
  });

  it('reads [Content_Types].xml with a byte-order mark, in UTF-16, with prefixed names, under another case of its name', async () => {
    const types = `<ct:Types xmlns:ct="${CT}"><ct:Default Extension="XML" ContentType="${docxMain}"/></ct:Types>`;
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`<?xml version="1.0" encoding="UTF-16"?>${types}`, 'utf16le'),
    ]);
    for (const [name, bytes] of [
      ['[Content_Types].xml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(types)])],
      ['[Content_Types].xml', utf16],
      ['[content_types].XML', Buffer.from(types)],
    ] as const) {
      const bytesOf = ooxmlPackage({ [name]: bytes, '_rels/.rels': mainRel('word/document.xml') });
      expect(await identify(bytesOf)).toEqual({ format: 'docx' });
    }
  });

  it('takes the one main type declared when _rels/.rels is missing or names no main part', async () => {
    const types = `<Types xmlns="${CT}"><Default Extension="xml" ContentType="${docxMain}"/></Types>`;
    expect((await identify(ooxmlPackage({ '[Content_Types].xml': types }))).format).toBe('docx');
    const notXml = ooxmlPackage({ '[Content_Types].xml': types, '_rels/.rels': '<Relationships' });
    expect((await identify(notXml)).format).toBe('docx');
  });

  it('still refuses a macro-enabled main part typed by a Default', async () => {
    const docm = makeDocx('Hello', {
      mainTypedBy: 'default',
      mainContentType: 'application/vnd.ms-word.document.macroEnabled.main+xml',
    });
    expect((await failure(identify(docm))).code).toBe('unsupported_input_format');
  });

  it('reads an OpenDocument package without a mimetype part by its manifest, as LibreOffice does', async () => {
    const manifest = (type: string) =>
      '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">' +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${type}"/></manifest:manifest>`;
    const odf = (type: string) =>
      ooxmlPackage({
        'META-INF/manifest.xml': manifest(type),
        'content.xml': '<office:document-content/>',
      });
    expect(await identify(odf('application/vnd.oasis.opendocument.text'))).toEqual({ format: 'odt' });
    expect(await identify(odf('application/vnd.oasis.opendocument.spreadsheet'))).toEqual({ format: 'ods' });
    const template = await failure(identify(odf('application/vnd.oasis.opendocument.text-template')));
    expect(template.code).toBe('unsupported_input_format');
  });

  it('tells a Word 6.0/95 .doc (no table stream) from a Word 97 one, for LibreOffice to read each with its filter', async () => {
    expect(await identify(compoundFile('WordDocument'))).toEqual({ format: 'doc', word95: true });
    expect(await identify(compoundFile('WordDocument', '0Table'))).toEqual({ format: 'doc' });
  });

  it('names a compound file by its root streams, not by those of an object it embeds', async () => {
    const container = CFB.utils.cfb_new();
    CFB.utils.cfb_add(container, '/Workbook', Buffer.from('stream content'));
    CFB.utils.cfb_add(container, '/MBD0001/WordDocument', Buffer.from('stream content'));
    CFB.utils.cfb_add(container, '/MBD0001/1Table', Buffer.from('stream content'));
    const bytes = Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
    expect(await identify(bytes)).toEqual({ format: 'xls' });
  });

  it('reads a damaged compound file by its directory entries when cfb refuses it', async () => {
    // Version 3 files must count no directory sectors in their header; LibreOffice ignores the field.
    const bytes = compoundFile('Workbook');
    bytes.writeUInt32LE(3, 0x28);
    expect(await identify(bytes)).toEqual({ format: 'xls' });
    const doc = compoundFile('WordDocument', '1Table');
    doc.writeUInt32LE(0x800, 0x38); // the mini-stream cutoff, 4096 in every file LibreOffice writes
    expect(await identify(doc)).toEqual({ format: 'doc' });
    const encrypted = compoundFile('EncryptionInfo', 'EncryptedPackage');
    encrypted.writeUInt32LE(3, 0x28);
    expect((await failure(identify(encrypted))).message).toContain('encrypted');
  });
});

describe('identifyOfficeDocument: refusals', () => {
  it.each([
    [
      'a PNG',
      async () =>
        sharp({ create: { width: 2, height: 2, channels: 3, background: '#fff' } })
          .png()
          .toBuffer(),
    ],
    ['plain text', async () => Buffer.from('Hello, this is a text file')],
    ['a ZIP of other files', async () => Buffer.from(zipSync({ 'notes.txt': strToU8('hello') }))],
    [
      'an EPUB',
      async () => Buffer.from(zipSync({ mimetype: [strToU8('application/epub+zip'), { level: 0 }] })),
    ],
    [
      'a macro-enabled Word document',
      async () =>
        makeDocx('Hello', { mainContentType: 'application/vnd.ms-word.document.macroEnabled.main+xml' }),
    ],
    ['a compound file of another application', async () => compoundFile('__substg1.0_0037001F')],
  ])('answers unsupported_input_format for %s', async (_what, make) => {
    const error = await failure(identify(await make()));
    expect(error.code).toBe('unsupported_input_format');
    expect(error.message).toContain('docx, doc, xlsx');
  });

  it.each([
    ['a docx cut in half', () => makeDocx('Hello world').subarray(0, 400)],
    ['a docx cut before its end record', () => makeDocx('Hello world').subarray(0, -10)],
    ['a compound file cut short', () => compoundFile('WordDocument').subarray(0, 1000)],
    ['an encrypted Office package', () => compoundFile('EncryptionInfo', 'EncryptedPackage')],
    [
      'an OOXML package whose [Content_Types].xml is not XML',
      () => Buffer.from(zipSync({ '[Content_Types].xml': strToU8('<Types><Override') })),
    ],
  ])('answers invalid_source_file for %s', async (_what, make) => {
    const error = await failure(identify(make()));
    expect(error.code).toBe('invalid_source_file');
  });
});

describe('identifyOfficeDocument: ZIP bombs are refused before any office suite sees them', () => {
  it('refuses a part that inflates about 1000 times its stored size', async () => {
    const bomb = ratioBomb();
    expect(bomb.length).toBeLessThan(64 * 1024);
    const error = await failure(identify(bomb));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toMatch(/inflates \d+ times its stored size; at most 500/);
  });

  it('refuses a directory declaring more than the bound in all', async () => {
    const error = await failure(identify(declaredBomb(zipBounds.maxUncompressedBytes + 1)));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('inflate to more than 512 MiB');
  });

  it('refuses a part that inflates to more than its directory declares', async () => {
    const error = await failure(identify(lyingBomb()));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('more than it declares');
  });

  it('refuses a bomb inside an embedded document, and inside a document embedded in that', async () => {
    const once = await failure(identify(embedding(ratioBomb())));
    expect(once.code).toBe('invalid_source_file');
    expect(once.message).toMatch(
      /A part of the document \(inside word\/embeddings\/Microsoft_Excel_Worksheet\.xlsx\) inflates \d+ times/,
    );
    const twice = await failure(identify(embedding(embedding(ratioBomb()))));
    expect(twice.message).toContain(
      '(inside word/embeddings/Microsoft_Excel_Worksheet.xlsx › word/embeddings/',
    );
  });

  it('counts an embedded document against the same totals, and reads a sound one', async () => {
    expect((await identify(embedding(makeXlsx([['a', 'b']])))).format).toBe('docx');
    // 10,000 parts in the workbook, 4 in the document: each within the bound, together past it.
    const error = await failure(identify(embedding(manyEntries(zipBounds.maxEntries - 3))));
    expect(error.message).toMatch(
      /The document holds \d+ parts \(inside word\/embeddings\/.*\); at most 10000/,
    );
  });

  it('refuses an embedded archive that is not a readable ZIP', async () => {
    const error = await failure(identify(embedding(makeDocx('Hello').subarray(0, 300))));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain('An archive the document embeds (word/embeddings/');
  });

  it('refuses more parts than the bound', async () => {
    const error = await failure(identify(manyEntries(zipBounds.maxEntries)));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toContain(`at most ${zipBounds.maxEntries} are read`);
  });
});
