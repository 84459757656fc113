import { deflateSync, inflateSync } from 'node:zlib';
import { PDFArray, type PDFDict, PDFName, type PDFObject, PDFRawStream } from 'pdf-lib';
import { pdfLimits } from '#shared/pdf/limits.ts';

const key = (name: string) => PDFName.of(name);
const metadataType = PDFName.of('Metadata');

/**
 * Decoded bytes one document may spend on re-deflating. Inflating is what a small file of highly
 * compressed streams can make expensive, so the work is bounded per document, not per stream.
 */
export interface DeflateBudget {
  remaining: number;
}

/**
 * A stream that is already Flate must shrink by this share to be replaced: rewriting a producer's
 * level 6 at level 9 saves a percent or two, and that is not worth a document that differs from
 * its source; a fast level 1 from a scanner saves far more.
 */
const minimumSaving = 0.05;

export const deflateBudget = (): DeflateBudget => ({ remaining: pdfLimits.maxDecodedStreamBytes });

/** Whether the stream's only filter is Flate without parameters (a predictor would need undoing). */
function plainFlate(dict: PDFDict): boolean {
  if (dict.has(key('DecodeParms'))) return false;
  const filter: PDFObject | undefined = dict.lookup(key('Filter'));
  const only =
    filter instanceof PDFArray && filter.size() === 1 ? dict.context.lookup(filter.get(0)) : filter;
  return only === PDFName.FlateDecode;
}

/**
 * Content streams, fonts and the like, losslessly at Flate's highest level, as Ghostscript writes
 * them: unfiltered ones compressed, Flate ones compressed again when that saves enough. XMP metadata
 * stays readable as text, as the PDF specification recommends. Returns the replacement, if any.
 */
export function deflateStream(stream: PDFRawStream, budget: DeflateBudget): PDFRawStream | undefined {
  const { dict, contents } = stream;
  if (dict.get(PDFName.Type) === metadataType || contents.length < 64) return undefined;
  const flate = dict.has(key('Filter'));
  if (flate && !(plainFlate(dict) && budget.remaining > 0)) return undefined;
  let plain = contents;
  if (flate) {
    try {
      plain = inflateSync(contents, { maxOutputLength: budget.remaining });
    } catch {
      return undefined; // damaged, or past the budget: left as it is
    }
    budget.remaining -= plain.length;
  }
  const packed = deflateSync(plain, { level: 9 });
  const mustSave = flate ? Math.max(1, Math.ceil(contents.length * minimumSaving)) : 1;
  if (packed.length > contents.length - mustSave) return undefined;
  const copy = dict.clone(dict.context);
  copy.set(key('Filter'), PDFName.FlateDecode);
  copy.delete(key('DecodeParms'));
  return PDFRawStream.of(copy, packed);
}
