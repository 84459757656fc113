import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  type PDFObject,
  type PDFPage,
  type PDFRef,
  PDFString,
  StandardFonts,
} from 'pdf-lib';

/** A marker in every embedded file, to show that its bytes do not reach an output. */
export const EMBEDDED_MARKER = 'EMBEDDED-PAYLOAD-7f3a';
export const WEB_LINK = 'https://example.org/kept-link';

type Entries = Record<string, PDFObject | string | number | boolean | Array<PDFObject | string | number>>;

/** A dict built from plain values: names are written `/Name`, text as PDF strings. */
function dict(context: PDFContext, entries: Entries): PDFDict {
  const values = Object.entries(entries).map(([key, value]) => {
    if (typeof value === 'string' && !value.startsWith('/')) return [key, PDFString.of(value)];
    if (typeof value === 'string') return [key, PDFName.of(value.slice(1))];
    return [key, value];
  });
  const made = context.obj(Object.fromEntries(values) as Parameters<PDFContext['obj']>[0]);
  if (!(made instanceof PDFDict)) throw new Error('not a dict');
  return made;
}

const javascript = (context: PDFContext, code: string) =>
  dict(context, { Type: '/Action', S: '/JavaScript', JS: code });

const embeddedFile = (context: PDFContext, fileName: string): PDFRef => {
  const stream = context.stream(`${EMBEDDED_MARKER} ${fileName}`, { Type: 'EmbeddedFile' });
  return context.register(
    dict(context, {
      Type: '/Filespec',
      F: fileName,
      UF: fileName,
      EF: context.obj({ F: context.register(stream) }),
    }),
  );
};

function link(page: PDFPage, at: number, action: PDFObject): PDFRef {
  const { context } = page.doc;
  return context.register(
    dict(context, {
      Type: '/Annot',
      Subtype: '/Link',
      Rect: [20, 20 + at * 30, 200, 40 + at * 30],
      Border: [0, 0, 0],
      A: action,
    }),
  );
}

function addAnnotations(page: PDFPage, refs: PDFRef[]): void {
  page.node.set(PDFName.Annots, page.doc.context.obj(refs));
}

/**
 * A two-page PDF that carries every kind of active content the service must not pass on: document
 * JavaScript (names tree and open action), catalog, page and field additional actions, launch,
 * import, submit, reset, rendition, embedded-go-to and javascript: link actions, a JavaScript
 * action hidden in a GoTo's /Next chain and in an outline, embedded files (names tree and a file
 * attachment annotation) and an XFA form. Page 1 also has a web link and a link to page 2, which
 * must stay.
 */
export async function hostilePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const { context, catalog } = doc;
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const [first, second] = [doc.addPage([300, 300]), doc.addPage([300, 300])];
  first.drawText('page one', { x: 20, y: 260, size: 14, font });
  second.drawText('page two', { x: 20, y: 260, size: 14, font });

  catalog.set(PDFName.of('OpenAction'), javascript(context, 'app.alert("open")'));
  catalog.set(PDFName.of('AA'), context.obj({ WC: javascript(context, 'app.alert("close")') }));
  catalog.set(
    PDFName.of('Names'),
    context.obj({
      JavaScript: context.obj({
        Names: [PDFHexString.fromText('startup'), context.register(javascript(context, 'app.alert(1)'))],
      }),
      EmbeddedFiles: context.obj({
        Names: [PDFHexString.fromText('payload.exe'), embeddedFile(context, 'payload.exe')],
      }),
    }),
  );

  const field = context.register(
    dict(context, {
      Type: '/Annot',
      Subtype: '/Widget',
      FT: '/Btn',
      T: 'send',
      Rect: [220, 20, 280, 40],
      P: first.ref,
      A: dict(context, { S: '/SubmitForm', F: 'https://collector.example/' }),
      AA: context.obj({ K: javascript(context, 'event.value = 1') }),
    }),
  );
  catalog.set(
    PDFName.of('AcroForm'),
    context.obj({ Fields: [field], XFA: context.register(context.stream('<xdp:xdp/>')) }),
  );

  const goToSecond = dict(context, {
    S: '/GoTo',
    D: [second.ref, PDFName.of('Fit')],
    Next: [javascript(context, 'app.alert("next")')],
  });
  addAnnotations(first, [
    link(first, 0, dict(context, { S: '/URI', URI: WEB_LINK })),
    link(first, 1, goToSecond),
    link(first, 2, dict(context, { S: '/Launch', F: 'calc.exe', Win: dict(context, { F: 'cmd.exe' }) })),
    link(first, 3, dict(context, { S: '/ImportData', F: 'data.fdf' })),
    link(first, 4, dict(context, { S: '/ResetForm' })),
    link(first, 5, dict(context, { S: '/Rendition', OP: 0, JS: 'app.alert("media")' })),
    link(
      first,
      6,
      dict(context, { S: '/GoToE', NewWindow: true, T: dict(context, { R: '/C', N: 'payload.exe' }) }),
    ),
    link(first, 7, dict(context, { S: '/URI', URI: 'javascript:app.alert(2)' })),
    field,
    context.register(
      dict(context, {
        Type: '/Annot',
        Subtype: '/FileAttachment',
        Rect: [250, 250, 270, 270],
        FS: embeddedFile(context, 'attached.js'),
      }),
    ),
  ]);
  first.node.set(PDFName.of('AA'), context.obj({ O: dict(context, { S: '/Launch', F: 'calc.exe' }) }));
  second.node.set(PDFName.of('AA'), context.obj({ C: javascript(context, 'app.alert("page close")') }));
  const script = context.register(context.stream('app.alert("stream")'));
  addAnnotations(second, [link(second, 0, dict(context, { S: '/JavaScript', JS: script }))]);

  const outlines = context.nextRef();
  const item = context.register(
    dict(context, {
      Title: 'Start',
      Parent: outlines,
      A: dict(context, { S: '/GoTo', D: [first.ref, PDFName.of('Fit')], Next: javascript(context, 'x()') }),
    }),
  );
  context.assign(outlines, dict(context, { Type: '/Outlines', First: item, Last: item, Count: 1 }));
  catalog.set(PDFName.of('Outlines'), outlines);
  return doc.save({ useObjectStreams: false });
}

/** What an active PDF is made of, as text in qpdf's expanded (QDF) form. */
const activeTokens: Array<[string, RegExp]> = [
  ['JavaScript', /\/JavaScript\b/],
  ['JS', /\/JS\b/],
  ['Launch', /\/Launch\b/],
  ['additional actions', /\/AA\b/],
  ['embedded files', /\/EmbeddedFiles?\b/],
  ['an embedded file', new RegExp(EMBEDDED_MARKER)],
  ['file attachment', /\/FileAttachment\b/],
  ['XFA', /\/XFA\b/],
  ['ImportData', /\/ImportData\b/],
  ['SubmitForm', /\/SubmitForm\b/],
  ['ResetForm', /\/ResetForm\b/],
  ['Rendition', /\/Rendition\b/],
  ['GoToE', /\/GoToE\b/],
  ['javascript: link', /javascript:/i],
  // An open action is allowed only as a destination: an array or a name.
  ['an open action', /\/OpenAction\s*(?![[/\s])/],
  ['an open action dict', /\/OpenAction\s*(\d+ 0 R|<<)/],
];

/** The PDF as qpdf writes it with every stream uncompressed and no object streams. */
export function expandPdf(bytes: Uint8Array): string {
  const folder = mkdtempSync(join(tmpdir(), 'expand-pdf-'));
  try {
    writeFileSync(join(folder, 'in.pdf'), bytes);
    const run = spawnSync('qpdf', ['--qdf', '--object-streams=disable', 'in.pdf', 'out.pdf'], {
      cwd: folder,
      encoding: 'utf8',
    });
    // 3: written, with warnings about the input.
    if (run.status !== 0 && run.status !== 3) throw new Error(`qpdf failed: ${run.stderr}`);
    return readFileSync(join(folder, 'out.pdf'), 'latin1');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The kinds of active content found in a PDF after expansion; [] for a clean one. */
export function activeContentIn(bytes: Uint8Array): string[] {
  const text = expandPdf(bytes);
  return activeTokens.filter(([, pattern]) => pattern.test(text)).map(([label]) => label);
}
