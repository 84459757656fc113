import { type Bait, decodingRoutes, type Specimen, specimen } from './specimen.ts';

/** SVGs that reach outside themselves (files, URLs, entities, XInclude), or blow up when parsed or drawn. */
export function svgSpecimens(bait: Bait): Specimen[] {
  const open =
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'xmlns:xi="http://www.w3.org/2001/XInclude" width="64" height="64" viewBox="0 0 64 64">' +
    '<rect width="64" height="64" fill="#ffffff"/>';
  const svg = (name: string, inner: string, prolog = '') => ({
    ...specimen(name, 'svg', Buffer.from(`${prolog}${open}${inner}</svg>`), 'bounded'),
    // Everything these draw would come from a file or URL outside the SVG.
    blank: /href=|&secret;/.test(inner) && !/<rect/.test(inner),
  });
  const image = (href: string) => `<image href="${href}" xlink:href="${href}" width="64" height="64"/>`;
  const laughs = [
    '<!ENTITY l0 "lollollollollollollollollollol">',
    ...Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`),
  ].join('');
  return [
    svg('SVG drawing a local PNG through file:', image(`file://${bait.secretPng}`)),
    svg('SVG drawing a local PNG by a relative path out of its folder', image('../secret/green.png')),
    svg('SVG drawing /etc/hostname through file:', image('file:///etc/hostname')),
    svg('SVG drawing an image from a loopback URL', image(bait.trackerUrl)),
    svg(
      'SVG using an external fragment',
      `<use href="${bait.trackerUrl}#a" xlink:href="${bait.trackerUrl}#a"/>`,
    ),
    svg(
      'SVG importing a stylesheet',
      `<style>@import url("${bait.trackerUrl}");</style><rect width="8" height="8"/>`,
    ),
    svg(
      'SVG with XInclude of a local text file',
      `<text x="2" y="30" font-size="12"><xi:include href="file://${bait.secretText}" parse="text"/></text>` +
        '<text x="2" y="50" font-size="12"><xi:include href="file:///etc/hostname" parse="text"/></text>',
    ),
    svg(
      'SVG with external XML entities (XXE)',
      '<text x="2" y="30" font-size="12">&secret;&host;</text>',
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY secret SYSTEM "file://${bait.secretText}">` +
        '<!ENTITY host SYSTEM "file:///etc/hostname">]>',
    ),
    svg(
      'SVG with a billion laughs',
      '<text x="2" y="30">&l9;</text>',
      `<?xml version="1.0"?><!DOCTYPE svg [${laughs}]>`,
    ),
    svg(
      'SVG of 200 000 nested groups',
      `${'<g>'.repeat(200_000)}<rect width="1" height="1"/>${'</g>'.repeat(200_000)}`,
    ),
    svg(
      'SVG with a script and an event handler',
      '<script>alert(1)</script><rect width="9" height="9" onload="alert(2)"/>',
    ),
    {
      ...specimen(
        'SVG claiming 1 000 000 × 1 000 000 pixels',
        'svg',
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000"><rect width="10" height="10"/></svg>',
        ),
        'bounded',
        ['invalid_source_file'],
      ),
      refusedBy: decodingRoutes,
    },
  ];
}
