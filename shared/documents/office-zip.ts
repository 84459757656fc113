import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { zipBounds } from '#shared/documents/office-limits.ts';

/**
 * Reads a ZIP-based document under the bounds of office-limits.ts: refused from the central
 * directory first, then the declared sizes proven by inflating every entry into a byte counter
 * (nothing is kept but the parts asked for and embedded archives), since a central directory may
 * lie. Embedded archives are checked the same way, against the same totals.
 */

/** A ZIP that breaks the bounds, or cannot be read; the message says which, for the caller. */
export class DocumentArchiveError extends Error {
  readonly kind: 'bomb' | 'unreadable' | 'encrypted';
  constructor(kind: DocumentArchiveError['kind'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DocumentArchiveError';
    this.kind = kind;
  }
}

export interface ArchiveListing {
  /** Entry names, as stored. */
  names: Set<string>;
  /**
   * The bytes of the parts asked for, keyed by the name asked for, when present: names are matched
   * without regard to case, as ZIP-based packages' part names are (each at most maxNamingPartBytes).
   */
  parts: Map<string, Buffer>;
}

/** What the document and everything it embeds have used of the bounds so far. */
interface Budget {
  entries: number;
  bytes: number;
}

const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');
const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
const bomb = (message: string, cause?: unknown) => new DocumentArchiveError('bomb', message, { cause });
/** Where a part is, for the message: the document itself, or an archive it embeds. */
const within = (where: string) => (where ? ` (inside ${where})` : '');

function openZip(source: string | Buffer): Promise<ZipFile> {
  // strictFileNames off: a stray backslash in a name is not ours to refuse; nothing is extracted.
  const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true };
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, zip: ZipFile) => (error ? reject(error) : resolve(zip));
    if (typeof source === 'string') yauzl.open(source, options, done);
    else yauzl.fromBuffer(source, options, done);
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream)));
  });
}

/** Every entry of the central directory, checked against the bounds as it is read. */
function listEntries(zip: ZipFile, budget: Budget, where: string): Promise<Entry[]> {
  budget.entries += zip.entryCount;
  if (budget.entries > zipBounds.maxEntries) {
    return Promise.reject(
      bomb(
        `The document holds ${budget.entries} parts${within(where)}; at most ${zipBounds.maxEntries} are read.`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      budget.bytes += entry.uncompressedSize;
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (budget.bytes > zipBounds.maxUncompressedBytes) {
        reject(
          bomb(
            `The document's parts${within(where)} inflate to more than ${mib(zipBounds.maxUncompressedBytes)}, the most read.`,
          ),
        );
      } else if (entry.uncompressedSize > zipBounds.ratioFloorBytes && ratio > zipBounds.maxEntryRatio) {
        reject(
          bomb(
            `A part of the document${within(where)} inflates ${Math.round(ratio)} times its stored size; at most ${zipBounds.maxEntryRatio} is read.`,
          ),
        );
      } else if (entry.isEncrypted()) {
        reject(new DocumentArchiveError('encrypted', 'The document is encrypted (password-protected).'));
      } else {
        entries.push(entry);
        zip.readEntry();
      }
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

interface Inflated {
  /** The entry's first maxNamingPartBytes, when it is a part asked for. */
  head?: Buffer;
  /** The entry's bytes, when they are a ZIP and nested archives are looked into. */
  archive?: Buffer;
}

/**
 * Inflates one entry into a counter. yauzl stops the stream as soon as it yields more bytes than
 * the entry declared (validateEntrySizes), so a lying directory costs no more than its honest
 * total, which listEntries has already bounded. With `keepHead`, the entry's bytes come back up to
 * the naming parts' bound; with `findArchives`, an entry whose bytes start as a ZIP comes back whole.
 */
async function inflateEntry(
  zip: ZipFile,
  entry: Entry,
  options: { keepHead: boolean; findArchives: boolean; where: string },
): Promise<Inflated> {
  const chunks: Buffer[] = [];
  let seen = 0;
  let archive: boolean | undefined;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const keepAll = archive !== false && options.findArchives;
      if (keepAll || (options.keepHead && seen < zipBounds.maxNamingPartBytes)) chunks.push(chunk);
      seen += chunk.length;
      if (archive === undefined && options.findArchives && seen >= ZIP_MAGIC.length) {
        archive = Buffer.concat(chunks).subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC);
        if (archive && entry.uncompressedSize > zipBounds.maxNestedArchiveBytes) {
          const path = options.where ? `${options.where} › ${entry.fileName}` : entry.fileName;
          done(
            bomb(
              `The document embeds an archive of more than ${mib(zipBounds.maxNestedArchiveBytes)} (${path}); none that large is read.`,
            ),
          );
          return;
        }
        if (!archive && !options.keepHead) chunks.length = 0;
      }
      done();
    },
  });
  try {
    await pipeline(await openEntry(zip, entry), sink);
  } catch (error) {
    // yauzl's words for an entry that yields more than its directory said.
    if (error instanceof Error && /too many bytes in the stream/.test(error.message)) {
      throw bomb(
        `A part of the document${within(options.where)} inflates to more than it declares in the ZIP directory.`,
        error,
      );
    }
    throw error;
  }
  const bytes = Buffer.concat(chunks);
  return {
    ...(options.keepHead ? { head: bytes.subarray(0, zipBounds.maxNamingPartBytes) } : {}),
    ...(archive ? { archive: bytes } : {}),
  };
}

/** Checks one archive, then the archives it embeds, depth first, against the shared budget. */
async function checkArchive(
  source: string | Buffer,
  wanted: readonly string[],
  budget: Budget,
  where: string,
  depth: number,
): Promise<ArchiveListing> {
  let zip: ZipFile | undefined;
  const names = new Set<string>();
  const parts = new Map<string, Buffer>();
  const asked = new Map(wanted.map((name) => [name.toLowerCase(), name]));
  try {
    zip = await openZip(source);
    const entries = await listEntries(zip, budget, where);
    for (const entry of entries) {
      names.add(entry.fileName);
      if (entry.fileName.endsWith('/')) continue;
      const askedAs = asked.get(entry.fileName.toLowerCase());
      const inflated = await inflateEntry(zip, entry, {
        keepHead: askedAs !== undefined,
        findArchives: depth < zipBounds.maxNestingDepth,
        where,
      });
      if (askedAs !== undefined && inflated.head && !parts.has(askedAs)) parts.set(askedAs, inflated.head);
      // Checked at once, so that at most one embedded archive per level is held in memory.
      if (inflated.archive) {
        const path = where ? `${where} › ${entry.fileName}` : entry.fileName;
        await checkArchive(inflated.archive, [], budget, path, depth + 1);
      }
    }
  } catch (error) {
    if (error instanceof DocumentArchiveError) throw error;
    const what = where ? `An archive the document embeds (${where})` : 'The document’s ZIP structure';
    throw new DocumentArchiveError('unreadable', `${what} cannot be read.`, { cause: error });
  } finally {
    zip?.close();
  }
  return { names, parts };
}

/**
 * Reads a ZIP-based document's directory and inflates every entry (and every archive it embeds)
 * under the bounds, returning its entry names and the named parts. Throws DocumentArchiveError:
 * `bomb` for a bound, `encrypted`, or `unreadable` for a truncated or malformed archive.
 */
export function readDocumentArchive(path: string, wanted: readonly string[]): Promise<ArchiveListing> {
  return checkArchive(path, wanted, { entries: 0, bytes: 0 }, '', 0);
}
