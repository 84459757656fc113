import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { savePdf } from '#shared/pdf/output.ts';
import { removeActiveContent } from '#shared/pdf/sanitize.ts';
import {
  activeContentIn,
  EMBEDDED_MARKER,
  expandPdf,
  hostilePdf,
  WEB_LINK,
} from '../../support/hostile-pdf.ts';

const reload = async (bytes: Uint8Array) => PDFDocument.load(bytes);

describe('removeActiveContent, as every saved PDF goes through it', () => {
  it('removes every kind of active content and keeps web links, page links and the outline', async () => {
    const source = await hostilePdf();
    expect(activeContentIn(source)).toHaveLength(16);

    const saved = await savePdf(await reload(source));

    expect(activeContentIn(saved)).toEqual([]);
    const text = expandPdf(saved);
    expect(text).toContain(WEB_LINK);
    expect(text).not.toContain(EMBEDDED_MARKER);
    const doc = await reload(saved);
    expect(doc.getPageCount()).toBe(2);
    const links = doc.getPages()[0]!.node.lookup(PDFName.Annots, PDFArray).asArray();
    // Web link, page link and the form field stay; the attachment goes; the other links lose their action.
    expect(links).toHaveLength(9);
    const outline = doc.catalog.lookup(PDFName.of('Outlines'), PDFDict).lookup(PDFName.of('First'), PDFDict);
    const action = outline.lookup(PDFName.of('A'), PDFDict);
    expect(action.get(PDFName.of('S'))).toBe(PDFName.of('GoTo'));
    expect(action.has(PDFName.of('Next'))).toBe(false);
  });

  it('turns an open GoTo action into its plain destination and keeps a destination as it is', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    const destination = doc.context.obj([page.ref, PDFName.of('Fit')]);
    doc.catalog.set(
      PDFName.of('OpenAction'),
      doc.context.obj({ S: 'GoTo', D: destination, Next: doc.context.obj({ S: 'JavaScript' }) }),
    );
    expect(removeActiveContent(doc)).toBeGreaterThan(0);
    expect(doc.catalog.lookup(PDFName.of('OpenAction'))).toBe(destination);
    expect(removeActiveContent(doc)).toBe(0);
  });

  it('keeps page-turning named actions and mail links, and drops other named actions and file: links', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    const link = (action: Record<string, unknown>) =>
      doc.context.register(
        doc.context.obj({ Type: 'Annot', Subtype: 'Link', A: doc.context.obj(action as never) }),
      );
    const uri = (text: string) => ({ S: 'URI', URI: PDFString.of(text) });
    const annotations = [
      link({ S: 'Named', N: 'NextPage' }),
      link({ S: 'Named', N: 'Print' }),
      link(uri('mailto:team@example.org')),
      link(uri('file:///etc/passwd')),
      link(uri(' JavaScript:alert(1)')),
    ];
    page.node.set(PDFName.Annots, doc.context.obj(annotations));

    expect(removeActiveContent(doc)).toBe(3);

    const kept = annotations.map((ref) => doc.context.lookup(ref, PDFDict).has(PDFName.of('A')));
    expect(kept).toEqual([true, false, true, false, false]);
  });

  it('finds nothing to remove in a document without active content', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('plain');
    expect(removeActiveContent(doc)).toBe(0);
  });
});
