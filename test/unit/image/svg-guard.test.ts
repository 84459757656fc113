import { describe, expect, it } from 'vitest';
import { svgLimits } from '#shared/image/limits.ts';
import { svgRefusal } from './svg-refusal.ts';

const svg = (inner: string, attributes = '') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"${attributes}>${inner}</svg>`;

describe('SVG self-containment check', () => {
  it.each([
    [
      'shapes, gradients and fragment links',
      svg('<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="5" height="5"/><use href="#g"/>'),
    ],
    [
      'inline data: images',
      svg('<image width="5" height="5" xlink:href="data:image/png;base64,iVBORw0KGgo="/>'),
    ],
    ['an internal style sheet', svg('<style>rect { fill: url("#g"); }</style><rect width="5" height="5"/>')],
    [
      'a doctype without entities',
      `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">${svg('')}`,
    ],
  ])('accepts %s', (_name, text) => {
    expect(svgRefusal(text)).toBe('accepted');
  });

  it.each([
    [
      'an external entity',
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`,
      /entities/,
    ],
    [
      'entity expansion (billion laughs)',
      `<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>${svg('<text>&b;</text>')}`,
      /entities/,
    ],
    [
      'an http image',
      svg('<image width="5" height="5" href="http://169.254.169.254/latest"/>'),
      /external resource/,
    ],
    [
      'a file image via xlink',
      svg('<image width="5" height="5" xlink:href="file:///etc/passwd"/>'),
      /external resource/,
    ],
    ['a relative image', svg('<image width="5" height="5" href="secret.png"/>'), /external resource/],
    [
      'a CSS url in an attribute',
      svg('<rect width="5" height="5" style="fill: url(https://example.com/a.svg#p)"/>'),
      /external resource/,
    ],
    ['an @import', svg('<style>@import "https://example.com/a.css";</style>'), /style sheet/],
    [
      'an external url in a CDATA style',
      svg('<style><![CDATA[rect { fill: url(https://x.test/p.svg#a) }]]></style>'),
      /external resource/,
    ],
    [
      'an xml-stylesheet instruction',
      `<?xml-stylesheet href="https://example.com/a.css"?>${svg('')}`,
      /style sheet/,
    ],
    [
      'XInclude',
      svg('<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>'),
      /XInclude/,
    ],
    ['an undefined entity', svg('<text>&nbsp;</text>'), /not well-formed/],
    ['broken XML', '<svg xmlns="http://www.w3.org/2000/svg"><rect', /not well-formed/],
    [
      'XInclude as the default namespace',
      svg('<include xmlns="http://www.w3.org/2001/XInclude" href="#a" parse="text"/>'),
      /XInclude/,
    ],
    [
      'XInclude under a prefix declared on an ancestor',
      svg('<g xmlns:q="http://www.w3.org/2001/XInclude"><g><q:include href="#a"/></g></g>'),
      /XInclude/,
    ],
    ['an element of an unbound prefix', svg('<q:rect width="5" height="5"/>'), /not well-formed/],
    ['an attribute of an unbound prefix', svg('<rect q:width="5" height="5"/>'), /not well-formed/],
  ])('refuses %s', (_name, text, message) => {
    const answer = svgRefusal(text);
    expect(answer).toMatch(/^invalid_source_file: /);
    expect(answer).toMatch(message);
  });
});

const nested = (levels: number, leaves = 1) =>
  svg(`${'<g>'.repeat(levels)}${'<rect width="1" height="1"/>'.repeat(leaves)}${'</g>'.repeat(levels)}`);

describe('SVG size limits', () => {
  it(`accepts ${svgLimits.maxDepth} levels of nesting and ${svgLimits.maxElements} elements`, () => {
    // The root element is the first level, the rect the last.
    expect(svgRefusal(nested(svgLimits.maxDepth - 2))).toBe('accepted');
    expect(svgRefusal(nested(0, svgLimits.maxElements - 1))).toBe('accepted');
  });

  it('refuses one level or one element more', () => {
    expect(svgRefusal(nested(svgLimits.maxDepth - 1))).toBe(
      `invalid_source_file: The SVG nests elements more than ${svgLimits.maxDepth} levels deep, the most accepted.`,
    );
    expect(svgRefusal(nested(0, svgLimits.maxElements))).toBe(
      `invalid_source_file: The SVG holds more than ${svgLimits.maxElements} elements, the most accepted.`,
    );
  });

  it('stops at the first element past the depth limit, however deep the document goes', () => {
    // Its time budget is measured in test/perf/timings.test.ts.
    expect(svgRefusal(nested(200_000))).toMatch(/levels deep/);
  });

  it('checks the largest document it accepts, every element as deep as allowed, within the route timeout', () => {
    // Resolving a namespace costs the same at any depth: saxes' own namespace mode walked every open
    // element for each new one.
    const levels = svgLimits.maxDepth - 1;
    const chain = `${'<g>'.repeat(levels)}${'</g>'.repeat(levels)}`;
    const text = svg(chain.repeat(Math.floor((svgLimits.maxElements - 1) / levels)));
    const started = performance.now();
    expect(svgRefusal(text)).toBe('accepted');
    // A bound no slow machine reaches when the walk is linear; the one-second budget is in test/perf.
    expect(performance.now() - started).toBeLessThan(29_000);
  });
});
