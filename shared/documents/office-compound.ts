import CFB from 'cfb';

/**
 * The stream names of an OLE2 compound file, the container of the legacy Office formats (doc, xls,
 * ppt), so that the format can be named before LibreOffice opens it.
 *
 * A sound file is read with cfb. A damaged one is not refused for that: LibreOffice reads compound
 * files that cfb does not (cut short by a sector, a header field out of its range such as the
 * directory sector count or the mini-stream cutoff, a broken sector chain) and recovers what it can,
 * so a format check that refused them would be stricter than the engine behind it. For those, the
 * names come from the directory entries themselves: every entry is 128 bytes at a 128-byte boundary
 * of the file (sectors are 512 or 4096 bytes), and holds its name in UTF-16 with the name's length
 * and the entry's type beside it. Only the names asked for are looked for, and nothing else of the
 * file is believed; whether the rest can be read is LibreOffice's to say. What protects resources
 * stays: the file's size bound (office-limits.ts), under which the whole file is read once.
 */

const HEADER_BYTES = 512;
const ENTRY_BYTES = 128;
/** Where an entry keeps its name's length in bytes (terminator included) and its type. */
const NAME_LENGTH_AT = 64;
const TYPE_AT = 66;
const STREAM = 2;

export interface CompoundStreams {
  /**
   * The root storage's stream names (or every stream's, when none of those wanted is at the root),
   * lower-cased: compound-file names compare without regard to case.
   */
  names: Set<string>;
  /** cfb could not read the file; `names` holds only those of `wanted` found in its directory entries. */
  damaged: boolean;
  /** Why cfb could not, for the log. */
  cause?: unknown;
}

/** Every 128-byte boundary past the header that holds a stream entry named as one of `wanted`. */
function scanEntries(bytes: Buffer, wanted: readonly string[]): Set<string> {
  const byLength = new Map<number, Set<string>>();
  for (const name of wanted) {
    const length = (name.length + 1) * 2;
    byLength.set(length, (byLength.get(length) ?? new Set()).add(name.toLowerCase()));
  }
  const found = new Set<string>();
  for (let at = HEADER_BYTES; at + TYPE_AT < bytes.length; at += ENTRY_BYTES) {
    if (bytes[at + TYPE_AT] !== STREAM) continue;
    const nameBytes = bytes.readUInt16LE(at + NAME_LENGTH_AT);
    const names = byLength.get(nameBytes);
    const name = names && bytes.toString('utf16le', at, at + nameBytes - 2).toLowerCase();
    if (name && names.has(name)) found.add(name);
  }
  return found;
}

/** The streams of the compound file `bytes`; `wanted` are the names a damaged one is searched for. */
export function compoundStreams(bytes: Buffer, wanted: readonly string[]): CompoundStreams {
  try {
    const container = CFB.read(bytes, { type: 'buffer' });
    const streams = container.FileIndex.flatMap((entry, index) =>
      entry.type === STREAM
        ? [{ name: entry.name.toLowerCase(), path: container.FullPaths[index] ?? '' }]
        : [],
    );
    // The root's own streams: an embedded object (a Word document in a workbook) has its streams in a
    // storage of its own, and names nothing about the file that embeds it. Should broken tree links
    // leave none of the wanted streams at the root, every stream counts, and LibreOffice judges.
    const atRoot = new Set(
      streams.filter(({ path }) => path.split('/').length === 2).map(({ name }) => name),
    );
    const rooted = wanted.some((name) => atRoot.has(name.toLowerCase()));
    return { names: rooted ? atRoot : new Set(streams.map(({ name }) => name)), damaged: false };
  } catch (cause) {
    return { names: scanEntries(bytes, wanted), damaged: true, cause };
  }
}
