import { PDFiumLibrary } from '@hyzyla/pdfium';
import {
  decodePDFRawStream,
  PDFContext,
  PDFDict,
  PDFDocument,
  PDFNumber,
  PDFParser,
  PDFString,
  StalledParserError,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { encryptedPdf, textPdf } from './fixtures.ts';

/** Runs a library call that must fail and returns what it threw. */
async function failureOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the library call to fail');
}

function mapped(engine: 'pdf-lib' | 'pdfium', error: unknown): ApiError {
  try {
    mapNativeError(engine, error);
  } catch (thrown) {
    if (thrown instanceof ApiError) return thrown;
    throw thrown;
  }
  throw new Error('mapNativeError returned');
}

const parse = (text: string, throwOnInvalidObject = false) =>
  PDFParser.forBytesWithOptions(Buffer.from(text), Infinity, throwOnInvalidObject).parseDocument();

const pdfium = PDFiumLibrary.init();

describe('pdf-lib and pdfium failures in the native error table', () => {
  it.each([
    ['an object pdf-lib cannot parse', () => parse('%PDF-1.7\n1 0 obj\n<< /A (unclosed >>\nendobj\n', true)],
    ['a missing obj keyword', () => parse('%PDF-1.7\n1 0 1 0 1 0\n')],
    ['a version that is not a number', () => parse('%PDF-x.7\n1 0 obj\n1\nendobj\n')],
    ['no PDF header', () => parse('no header here')],
    ['a stalled parser', () => Promise.reject(new StalledParserError({ line: 1, column: 1, offset: 0 }))],
    ['an object of the wrong type', () => PDFContext.create().lookup(PDFNumber.of(1), PDFDict)],
    [
      'a stream encoding pdf-lib lacks',
      () => {
        const context = PDFContext.create();
        decodePDFRawStream(context.stream(new Uint8Array([1, 2]), { Filter: 'JBIG2Decode' })).decode();
      },
    ],
  ])('pdf-lib: %s → invalid_source_file', async (_name, run) => {
    const error = mapped('pdf-lib', await failureOf(run));
    expect(error.code).toBe('invalid_source_file');
    expect(error.message).toBe('The PDF could not be read: it is damaged or not a complete PDF file.');
  });

  it('pdfium: garbage → invalid_source_file', async () => {
    const library = await pdfium;
    const error = mapped(
      'pdfium',
      await failureOf(() => library.loadDocument(Buffer.from('%PDF-1.7 nothing'))),
    );
    expect(error.code).toBe('invalid_source_file');
  });

  it('pdfium: a page it cannot load → invalid_source_file', () => {
    // FPDF_ERR_PAGE as @hyzyla/pdfium words it; pdfium reports it for page trees it cannot follow.
    expect(mapped('pdfium', new Error('Page not found or content error')).code).toBe('invalid_source_file');
  });

  it('pdfium: a password → encrypted_pdf', async () => {
    const library = await pdfium;
    const error = mapped('pdfium', await failureOf(async () => library.loadDocument(await encryptedPdf())));
    expect(error.code).toBe('encrypted_pdf');
  });

  it('pdfium: a certificate security handler → encrypted_pdf', async () => {
    const doc = await PDFDocument.load(await textPdf({ pages: 1 }));
    doc.context.trailerInfo.Encrypt = doc.context.register(
      doc.context.obj({ Filter: 'Adobe.PubSec', V: 4, R: 4, SubFilter: 'adbe.pkcs7.s5' }),
    );
    doc.context.trailerInfo.ID = doc.context.obj([
      PDFString.of('0123456789abcdef'),
      PDFString.of('0123456789abcdef'),
    ]);
    const bytes = await doc.save({ useObjectStreams: false });
    const library = await pdfium;
    const error = mapped('pdfium', await failureOf(() => library.loadDocument(bytes)));
    expect(error.code).toBe('encrypted_pdf');
  });

  it('leaves unknown failures alone (they stay 500s)', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(() => mapNativeError('pdf-lib', bug)).toThrow(bug);
    expect(() => mapNativeError('pdfium', bug)).toThrow(bug);
  });
});
