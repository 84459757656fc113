import CFB from 'cfb';
import { strToU8, zipSync } from 'fflate';
import { officeFormats } from '#shared/documents/office-limits.ts';
import { makeDocx, makeOdt, makePptx, makeRtf, makeXlsx } from '../../support/office-documents.ts';
import { embedding, lyingBomb, manyEntries, ratioBomb } from '../../support/zip-bombs.ts';
import { type Corpus, type Specimen, specimen } from './specimen.ts';

/*
 * Office specimens for /office-to-pdf: all but one are refused by the format check before
 * LibreOffice starts (cut archives, compound files cut before their directory, ZIP bombs of every
 * kind, encrypted packages, bytes of another format under an office name). The doc cut to 40 % keeps
 * its directory, and a damaged compound file that still names its streams is LibreOffice's to judge
 * (office-compound.ts): it costs one LibreOffice run, which refuses it. Documents that LibreOffice
 * does read (linked pictures, macros, damaged legacy files) are in
 * test/integration/office-to-pdf.test.ts.
 */

export { officeFormats };

const invalid = ['invalid_source_file'];
const unsupported = ['unsupported_input_format'];

/** An OpenDocument package of the given kind with one content part. */
const odf = (kind: string) =>
  Buffer.from(
    zipSync({
      mimetype: [strToU8(`application/vnd.oasis.opendocument.${kind}`), { level: 0 }],
      'content.xml': strToU8('<office:document-content/>'),
    }),
  );

/** A compound file of the given streams, as the legacy Office formats are. */
function compoundFile(...streams: string[]): Buffer {
  const container = CFB.utils.cfb_new();
  for (const name of streams) CFB.utils.cfb_add(container, `/${name}`, Buffer.alloc(2048, 0x20));
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

const sound: Record<string, () => Buffer> = {
  docx: () => makeDocx('Hardening corpus'),
  xlsx: () => makeXlsx([['Hardening', 'corpus']]),
  pptx: () => makePptx('Hardening corpus'),
  odt: () => makeOdt('Hardening corpus'),
  ods: () => odf('spreadsheet'),
  odp: () => odf('presentation'),
  doc: () => compoundFile('WordDocument', '1Table'),
  xls: () => compoundFile('Workbook'),
  ppt: () => compoundFile('PowerPoint Document'),
  rtf: () => makeRtf('Hardening corpus'),
};

const pdfBytes = Buffer.from(
  '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

function specimensOf(format: string): Specimen[] {
  const bytes = sound[format]!();
  const own = (name: string, body: Buffer, codes: readonly string[]) =>
    specimen(name, format, body, 'refused', codes);
  const list: Specimen[] = [
    own(`a PDF named .${format}`, pdfBytes, unsupported),
    own(`a plain ZIP named .${format}`, Buffer.from(zipSync({ 'notes.txt': strToU8('hello') })), unsupported),
  ];
  if (format === 'rtf') return list;
  list.push(own(`${format}, cut to 40 %`, bytes.subarray(0, Math.floor(bytes.length * 0.4)), invalid));
  if (['doc', 'xls', 'ppt'].includes(format)) {
    list.push(
      own(
        `an encrypted Office package named .${format}`,
        compoundFile('EncryptionInfo', 'EncryptedPackage'),
        invalid,
      ),
    );
  }
  if (format === 'docx') {
    list.push(
      own('docx with a part of 4 MiB of zeros (ratio ~1000)', ratioBomb(), invalid),
      own('docx whose directory understates a part 4096 times', lyingBomb(), invalid),
      own('docx embedding a workbook that is a ZIP bomb', embedding(ratioBomb()), invalid),
      own('docx of 10,003 parts', manyEntries(10_000), invalid),
    );
  }
  return list;
}

export function officeSpecimens(): Corpus {
  return Object.fromEntries(officeFormats.map((format) => [format, specimensOf(format)]));
}
