import {
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFHexString,
  PDFName,
  type PDFObject,
  PDFRef,
  PDFStream,
  PDFString,
} from 'pdf-lib';
import { dropUnreachable } from '#shared/pdf/prune.ts';

/**
 * What a PDF the service writes may not carry: anything a viewer runs, launches, submits or opens
 * by itself. Document JavaScript, open and additional actions, launch/import/submit/media actions,
 * embedded files and XFA forms are removed; links to web pages and to pages of the document stay.
 *
 * The walk visits every object of the document, not only the ones a viewer is known to read: an
 * action hidden under an unusual key is found by its type (`/S`), wherever it is.
 */

const name = (text: string) => PDFName.of(text);

/** The names looked up for every object, made once. */
const knownNames = ['S', 'GoTo', 'URI', 'Named', 'N', 'OpenAction', 'D', 'Next', 'Names'] as const;
const known = Object.fromEntries(
  [...knownNames, 'Collection', 'Annots', 'Subtype', 'EmbeddedFile', 'A', 'PA'].map((text) => [
    text,
    name(text),
  ]),
) as Record<
  (typeof knownNames)[number] | 'Collection' | 'Annots' | 'Subtype' | 'EmbeddedFile' | 'A' | 'PA',
  PDFName
>;
/** Entries that hold an action (or, for /Next, actions). */
const actionKeys = [known.A, known.PA, known.Next];

/** Every action type of ISO 32000-2 (12.6.4); a dict whose `/S` is one of these is an action. */
const actionTypes = new Set(
  [
    'GoTo',
    'GoToR',
    'GoToE',
    'GoToDp',
    'Launch',
    'Thread',
    'URI',
    'Sound',
    'Movie',
    'Hide',
    'Named',
    'SubmitForm',
    'ResetForm',
    'ImportData',
    'JavaScript',
    'SetOCGState',
    'Rendition',
    'Trans',
    'GoTo3DView',
    'RichMediaExecute',
  ].map(name),
);

/** The page-turning named actions of the standard; viewer-specific ones (Print, SaveAs…) go. */
const pageNamedActions = new Set(['NextPage', 'PrevPage', 'FirstPage', 'LastPage'].map(name));

/** Link schemes that open a web page or a mail form; `javascript:`, `file:` and the like do not stay. */
const webScheme = /^\s*(https?|mailto):/i;

/** Keys that only ever hold active or embedded content: additional actions, scripts, files, XFA. */
const removedKeys = ['AA', 'JS', 'EF', 'AF', 'XFA', 'RichMediaContent'].map(name);

/** Annotations that exist to play, open or hold content rather than to show or link. */
const removedAnnotations = new Set(
  ['FileAttachment', 'Sound', 'Movie', 'Screen', 'RichMedia', '3D'].map(name),
);

/** Name trees of the catalog's /Names that hold scripts, files or presentations. */
const removedNameTrees = ['JavaScript', 'EmbeddedFiles', 'AlternatePresentations'].map(name);

const textOf = (value: PDFObject | undefined) =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;

function isAllowedAction(action: PDFDict): boolean {
  const type = action.lookup(known.S);
  if (type === known.GoTo) return true;
  if (type === known.URI) return webScheme.test(textOf(action.lookup(known.URI)) ?? '');
  if (type === known.Named) return pageNamedActions.has(action.lookup(known.N) as PDFName);
  return false;
}

const isAction = (dict: PDFDict) => actionTypes.has(dict.lookup(known.S) as PDFName);

const isDestination = (value: PDFObject | undefined) =>
  value instanceof PDFArray || value instanceof PDFName || textOf(value) !== undefined;

/** Counts what was removed, so that callers can tell a clean source from a cleaned one. */
class Cleaner {
  removed = 0;
  readonly #doc: PDFDocument;

  constructor(doc: PDFDocument) {
    this.#doc = doc;
  }

  #delete(dict: PDFDict, key: PDFName): void {
    if (!dict.has(key)) return;
    dict.delete(key);
    this.removed += 1;
  }

  /** The catalog's open action may only show a place in the document. */
  openAction(dict: PDFDict): void {
    const key = known.OpenAction;
    const action = dict.lookup(key);
    if (action === undefined || isDestination(action)) return;
    const destination = action instanceof PDFDict ? action.lookup(known.D) : undefined;
    if (action instanceof PDFDict && action.lookup(known.S) === known.GoTo && isDestination(destination)) {
      // A GoTo with a follow-up chain becomes its bare destination: the view, and nothing after it.
      dict.set(key, destination as PDFObject);
      if (action.has(known.Next)) this.removed += 1;
      return;
    }
    this.#delete(dict, key);
  }

  catalog(): void {
    const { catalog } = this.#doc;
    this.openAction(catalog);
    const names = catalog.lookup(known.Names);
    if (names instanceof PDFDict) for (const key of removedNameTrees) this.#delete(names, key);
    this.#delete(catalog, known.Collection);
  }

  /** An action entry (`/A`, `/PA`, `/Next`) keeps only links, page views and page turns. */
  actionEntry(dict: PDFDict, key: PDFName): void {
    const value = dict.lookup(key);
    if (value instanceof PDFDict) {
      if (!isAllowedAction(value)) this.#delete(dict, key);
    } else if (value instanceof PDFArray) {
      for (let index = value.size() - 1; index >= 0; index -= 1) {
        const action = value.lookup(index);
        if (!(action instanceof PDFDict) || !isAllowedAction(action)) {
          value.remove(index);
          this.removed += 1;
        }
      }
      if (value.size() === 0) this.#delete(dict, key);
    }
  }

  annotations(dict: PDFDict): void {
    const annotations = dict.lookup(known.Annots);
    if (!(annotations instanceof PDFArray)) return;
    for (let index = annotations.size() - 1; index >= 0; index -= 1) {
      const annotation = annotations.lookup(index);
      if (
        annotation instanceof PDFDict &&
        removedAnnotations.has(annotation.lookup(known.Subtype) as PDFName)
      ) {
        annotations.remove(index);
        this.removed += 1;
      }
    }
  }

  dict(dict: PDFDict): void {
    if (isAction(dict) && !isAllowedAction(dict)) {
      // An action that no entry above reached (a name tree value, an unusual key): emptied where it is.
      for (const key of dict.keys()) dict.delete(key);
      this.removed += 1;
      return;
    }
    for (const key of removedKeys) this.#delete(dict, key);
    for (const entry of actionKeys) this.actionEntry(dict, entry);
    if (dict.has(known.OpenAction)) this.openAction(dict);
    this.annotations(dict);
  }

  /** Visits an object and the direct objects inside it; indirect ones are visited on their own. */
  visit(object: PDFObject): void {
    const pending = [object];
    while (pending.length > 0) {
      const current = pending.pop();
      const dict = current instanceof PDFStream ? current.dict : current;
      if (dict instanceof PDFDict) {
        this.dict(dict);
        for (const [, value] of dict.entries()) if (!(value instanceof PDFRef)) pending.push(value);
      } else if (dict instanceof PDFArray) {
        for (const value of dict.asArray()) if (!(value instanceof PDFRef)) pending.push(value);
      }
    }
  }

  all(): void {
    this.catalog();
    const { context } = this.#doc;
    for (const [ref, object] of context.enumerateIndirectObjects()) {
      if (object instanceof PDFStream && object.dict.get(PDFName.Type) === known.EmbeddedFile) {
        // Reached from somewhere other than a file specification's /EF: its bytes go all the same.
        context.delete(ref);
        this.removed += 1;
        continue;
      }
      this.visit(object);
    }
  }
}

/**
 * Removes active content from `doc` in place, then every object that is no longer reachable (the
 * scripts and files the removed entries pointed to). Returns how many entries were removed: 0 for
 * a document that carried none.
 */
export function removeActiveContent(doc: PDFDocument): number {
  const cleaner = new Cleaner(doc);
  cleaner.all();
  dropUnreachable(doc.context);
  return cleaner.removed;
}
