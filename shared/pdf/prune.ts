import { PDFArray, type PDFContext, PDFDict, type PDFObject, PDFRef, PDFStream } from 'pdf-lib';

/**
 * Removes every object that nothing reaches from the trailer: leftovers of incremental updates,
 * replaced images, orphaned resources.
 */
export function dropUnreachable(context: PDFContext): number {
  const reachable = new Set<PDFRef>();
  const pending: PDFObject[] = [context.trailerInfo.Root, context.trailerInfo.Info].filter(
    (entry): entry is PDFObject => entry !== undefined,
  );
  while (pending.length > 0) {
    const object = pending.pop();
    if (object instanceof PDFRef) {
      if (reachable.has(object)) continue;
      reachable.add(object);
      const target = context.lookup(object);
      if (target) pending.push(target);
    } else if (object instanceof PDFDict) {
      for (const [, value] of object.entries()) pending.push(value);
    } else if (object instanceof PDFArray) {
      pending.push(...object.asArray());
    } else if (object instanceof PDFStream) {
      pending.push(object.dict);
    }
  }
  let dropped = 0;
  for (const [ref] of context.enumerateIndirectObjects()) {
    if (!reachable.has(ref)) {
      context.delete(ref);
      dropped += 1;
    }
  }
  return dropped;
}
