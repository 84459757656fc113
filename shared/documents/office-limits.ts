/**
 * The office route's formats and bounds, as plain data: the route table describes them without
 * loading the readers (yauzl, cfb) or LibreOffice's runner.
 */

/** The formats /office-to-pdf takes (API.md, "Documents to PDF"). */
export const officeFormats = [
  'docx',
  'doc',
  'xlsx',
  'xls',
  'pptx',
  'ppt',
  'odt',
  'ods',
  'odp',
  'rtf',
] as const;
export type OfficeFormat = (typeof officeFormats)[number];

/**
 * The bounds a ZIP-based document (OOXML, ODF) must keep before LibreOffice opens it. A document
 * is a handful of XML parts and its pictures; a ZIP bomb is a small file that inflates to far more
 * than a function has, or an archive of a great many tiny entries.
 */
export const zipBounds = {
  /** Entries in the archive: a large workbook or deck has a few thousand. */
  maxEntries: 10_000,
  /** Bytes all entries inflate to, together: LibreOffice holds a multiple of its XML in memory. */
  maxUncompressedBytes: 512 * 1024 * 1024,
  /** Inflated over compressed size for one entry: XML compresses 10–100 times, a bomb ~1000 times. */
  maxEntryRatio: 500,
  /** Entries smaller than this are never refused for their ratio (a run of blank rows, say). */
  ratioFloorBytes: 1024 * 1024,
  /** The most read of a part the format is named by (`mimetype`, `[Content_Types].xml`). */
  maxNamingPartBytes: 1024 * 1024,
  /**
   * Embedded documents (a workbook in a Word file, an ODF object) are ZIPs inside the ZIP, which
   * LibreOffice may open to draw them: they are checked too, within the same totals, down to this
   * depth, each held in memory while it is checked, up to the size below.
   */
  maxNestingDepth: 2,
  maxNestedArchiveBytes: 64 * 1024 * 1024,
} as const;

/** An OLE2 compound file (doc, xls, ppt) is read whole into memory; legacy files this large are not read. */
export const maxCompoundFileBytes = 256 * 1024 * 1024;

/** The most a conversion may take: the Documents functions' 120 s, less time to answer. */
export const maxConversionMs = 110_000;
