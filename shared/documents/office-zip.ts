import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { zipBounds } from '#shared/documents/office-limits.ts';

/**
 * Reads a ZIP-based document under the bounds of office-limits.ts: refused from the central
 * directory first, then the declared sizes proven by inflating every entry into a byte counter
 * (nothing is kept), since a central directory may lie.
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
  /** The text of the parts asked for by name, when present (each at most maxNamingPartBytes). */
  parts: Map<string, string>;
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // strictFileNames off: a stray backslash in a name is not ours to refuse; nothing is extracted.
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    );
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream)));
  });
}

/** Every entry of the central directory, checked against the bounds as it is read. */
function listEntries(zip: ZipFile): Promise<Entry[]> {
  if (zip.entryCount > zipBounds.maxEntries) {
    return Promise.reject(
      new DocumentArchiveError(
        'bomb',
        `The document holds ${zip.entryCount} parts; at most ${zipBounds.maxEntries} are read.`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    let declared = 0;
    zip.on('entry', (entry: Entry) => {
      declared += entry.uncompressedSize;
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (declared > zipBounds.maxUncompressedBytes) {
        reject(
          new DocumentArchiveError(
            'bomb',
            `The document's parts inflate to more than ${mib(zipBounds.maxUncompressedBytes)}, the most read.`,
          ),
        );
      } else if (entry.uncompressedSize > zipBounds.ratioFloorBytes && ratio > zipBounds.maxEntryRatio) {
        reject(
          new DocumentArchiveError(
            'bomb',
            `A part of the document inflates ${Math.round(ratio)} times its stored size; at most ${zipBounds.maxEntryRatio} is read.`,
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

/**
 * Inflates one entry into a counter. yauzl stops the stream as soon as it yields more bytes than
 * the entry declared (validateEntrySizes), so a lying directory costs no more than its honest
 * total, which listEntries has already bounded. The parts named in `keep` are also returned as
 * text, up to their bound.
 */
async function inflateEntry(zip: ZipFile, entry: Entry, keep: boolean): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let kept = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (keep && kept < zipBounds.maxNamingPartBytes) {
        chunks.push(chunk);
        kept += chunk.length;
      }
      done();
    },
  });
  try {
    await pipeline(await openEntry(zip, entry), sink);
  } catch (error) {
    // yauzl's words for an entry that yields more than its directory said.
    if (error instanceof Error && /too many bytes in the stream/.test(error.message)) {
      throw new DocumentArchiveError(
        'bomb',
        'A part of the document inflates to more than it declares in the ZIP directory.',
        { cause: error },
      );
    }
    throw error;
  }
  return keep ? Buffer.concat(chunks).subarray(0, zipBounds.maxNamingPartBytes).toString('utf8') : undefined;
}

/**
 * Reads a ZIP-based document's directory and inflates every entry under the bounds, returning its
 * entry names and the named parts. Throws DocumentArchiveError: `bomb` for a bound, `encrypted`,
 * or `unreadable` for a truncated or malformed archive.
 */
export async function readDocumentArchive(path: string, wanted: readonly string[]): Promise<ArchiveListing> {
  let zip: ZipFile | undefined;
  try {
    zip = await openZip(path);
    const entries = await listEntries(zip);
    const names = new Set<string>();
    const parts = new Map<string, string>();
    for (const entry of entries) {
      names.add(entry.fileName);
      if (entry.fileName.endsWith('/')) continue;
      const text = await inflateEntry(zip, entry, wanted.includes(entry.fileName));
      if (text !== undefined) parts.set(entry.fileName, text);
    }
    return { names, parts };
  } catch (error) {
    if (error instanceof DocumentArchiveError) throw error;
    throw new DocumentArchiveError('unreadable', 'The document’s ZIP structure cannot be read.', {
      cause: error,
    });
  } finally {
    zip?.close();
  }
}
