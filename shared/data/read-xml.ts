import { SaxesParser } from 'saxes';
import { maxNestingDepth } from '#shared/data/limits.ts';
import { notValid } from '#shared/data/position.ts';

/** What one element becomes: its text, or an object of `@attributes`, child elements and `#text`. */
type Element = string | Record<string, unknown>;

interface Open {
  name: string;
  attributes: Record<string, string>;
  children: Map<string, Element[]>;
  text: string;
}

/**
 * XML 1.0 read by a streaming, non-validating parser that builds the tree itself: no entity is
 * expanded but the five predefined ones and character references, and no DTD is read or fetched
 * (a reference to an entity a DTD declares is refused). An element with neither attributes nor
 * child elements becomes its text; otherwise an object with `@name` for attributes, one key per
 * child element (an array when it repeats) and `#text` for text between them. Text is trimmed and
 * never typed; comments, processing instructions and the XML declaration are left out.
 */
export function readXml(text: string): Record<string, Element> {
  const parser = new SaxesParser({ position: true });
  const stack: Open[] = [];
  let root: Record<string, Element> | undefined;
  parser.on('opentag', (tag) => {
    if (stack.length >= maxNestingDepth) {
      throw notValid('XML', where(parser), `elements nest deeper than ${maxNestingDepth} levels`);
    }
    stack.push({
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      children: new Map(),
      text: '',
    });
  });
  const addText = (value: string) => {
    const open = stack.at(-1);
    if (open) open.text += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const open = stack.pop()!;
    const element = elementOf(open);
    const parent = stack.at(-1);
    if (!parent) {
      root = { [open.name]: element };
      return;
    }
    const siblings = parent.children.get(open.name);
    if (siblings) siblings.push(element);
    else parent.children.set(open.name, [element]);
  });
  parser.on('error', (error) => {
    throw notValid('XML', where(parser), error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, ''), error);
  });
  parser.write(text).close();
  return root!;
}

function elementOf(open: Open): Element {
  const text = open.text.trim();
  const attributes = Object.entries(open.attributes);
  if (attributes.length === 0 && open.children.size === 0) return text;
  // fromEntries defines own properties, so an element named "__proto__" is data, never a prototype.
  return Object.fromEntries([
    ...attributes.map(([name, value]) => [`@${name}`, value]),
    ...[...open.children].map(([name, elements]) => [name, elements.length === 1 ? elements[0] : elements]),
    ...(text === '' ? [] : [['#text', text]]),
  ]);
}

const where = (parser: SaxesParser) => ({ line: parser.line, column: parser.column });
