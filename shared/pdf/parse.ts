import { constants, inflateSync } from 'node:zlib';
import { PDFArray, type PDFContext, PDFName, type PDFObject, PDFParser, PDFRawStream } from 'pdf-lib';
import { ApiError } from '#shared/errors.ts';
import { type PdfLimits, pdfLimits } from '#shared/pdf/limits.ts';

const damaged = (detail: string) =>
  new ApiError('invalid_source_file', `The PDF could not be read: ${detail}`);

const flate = PDFName.of('FlateDecode');
const objectStream = PDFName.of('ObjStm');
const xrefStream = PDFName.of('XRef');

/** What one parse may spend. Once tripped, every further step of the parser fails with the same error. */
class ParseBudget {
  readonly #limits: PdfLimits;
  readonly #deadline: number;
  #objects = 0;
  #decodedBytes = 0;
  #steps = 0;
  tripped: ApiError | undefined;

  constructor(sizeBytes: number, limits: PdfLimits) {
    this.#limits = limits;
    this.#deadline =
      performance.now() + limits.parseBaseMs + (sizeBytes / 1_000_000) * limits.parseMsPerMegabyte;
  }

  /** Called on every lexer step; the clock is read every 1024 steps. */
  step(): void {
    if (this.tripped) throw this.tripped;
    this.#steps += 1;
    if ((this.#steps & 0x3ff) === 0 && performance.now() > this.#deadline) {
      this.trip(damaged('it is too damaged to be parsed in reasonable time.'));
    }
  }

  countObjects(count: number): void {
    this.#objects += count;
    if (this.#objects > this.#limits.maxParsedObjects) {
      this.trip(damaged(`it holds more than ${this.#limits.maxParsedObjects} objects.`));
    }
  }

  countDecoded(bytes: number): void {
    this.#decodedBytes += bytes;
    if (this.#decodedBytes > this.#limits.maxDecodedTotalBytes) {
      this.trip(damaged('its object streams decode to more data than this service accepts.'));
    }
  }

  remainingDecodedBytes(): number {
    return Math.min(
      this.#limits.maxDecodedStreamBytes,
      this.#limits.maxDecodedTotalBytes - this.#decodedBytes,
    );
  }

  trip(error: ApiError): never {
    this.tripped ??= error;
    throw this.tripped;
  }
}

/**
 * Counts the tokens of a decoded object stream: an upper bound of the objects parsing it will build.
 * A token starts at a name, array, dictionary or string opener, or at a run of regular characters.
 */
function countTokens(bytes: Uint8Array): number {
  let tokens = 0;
  let inToken = false;
  let previous = 0;
  for (const byte of bytes) {
    if (byte <= 0x20) {
      inToken = false; // NUL, TAB, LF, FF, CR, SP
    } else if (byte === 0x2f || byte === 0x5b || byte === 0x28) {
      tokens += 1; // '/', '[', '('
      inToken = byte === 0x2f;
    } else if (byte === 0x3c) {
      if (previous !== 0x3c) tokens += 1; // '<<' opens one dictionary
      inToken = false;
    } else if (byte === 0x3e || byte === 0x5d || byte === 0x29) {
      inToken = false; // '>', ']', ')'
    } else if (!inToken) {
      tokens += 1;
      inToken = true;
    }
    previous = byte;
  }
  return tokens;
}

/** The steps of pdf-lib's parser that it keeps private, replaced here. */
interface PrivateSteps {
  maybeRecoverRoot(): void;
  maybeParseTrailerDict(): void;
  maybeParseCrossRefSection(): unknown;
  maybeParseTrailer(): unknown;
}

/**
 * pdf-lib's parser with a budget. pdf-lib reads every object of the file into memory and decodes
 * object streams whole, with no limits and no clock; this subclass counts what it builds, measures
 * each object or cross-reference stream with a capped inflate before pdf-lib decodes it, and stops
 * on a deadline (malformed input can make pdf-lib's recovery scan byte by byte).
 */
class BudgetedPdfParser extends PDFParser {
  readonly #budget: ParseBudget;

  /** What was read otherwise than pdf-lib reads it, for `openPdf`'s repairs. */
  readonly repairs: string[] = [];

  constructor(bytes: Uint8Array, budget: ParseBudget, skipInvalidObjects: boolean) {
    // Yield to the event loop every 5000 objects; refuse objects pdf-lib cannot parse, unless asked
    // to skip them (then they read as absent, as viewers treat an object they cannot parse).
    super(bytes, 5000, !skipInvalidObjects, false);
    this.#budget = budget;
    // pdf-lib makes a catalog up for a file with no trailer at all. pdfium and poppler refuse such a
    // file as cut short, and so does every route here, alike; a trailer naming a wrong /Root is
    // still recovered, as they recover it.
    const self = this as unknown as PrivateSteps;
    const recoverRoot = self.maybeRecoverRoot.bind(this);
    self.maybeRecoverRoot = () => {
      if (this.context.trailerInfo.Root !== undefined) recoverRoot();
    };
    self.maybeParseTrailerDict = this.#newestTrailerDecides(self.maybeParseTrailerDict.bind(this));
    self.maybeParseCrossRefSection = this.#skipWhenDamaged(self.maybeParseCrossRefSection.bind(this));
    self.maybeParseTrailer = this.#skipWhenDamaged(self.maybeParseTrailer.bind(this));
  }

  /**
   * pdf-lib carries /Encrypt over from an older trailer to a newer one that has none, so a file
   * whose last revision removed its encryption (or an earlier trailer's leftover) read as
   * encrypted. Readers use the newest trailer alone: it decides here too.
   */
  #newestTrailerDecides(parseTrailerDict: () => void): () => void {
    return () => {
      const before = this.context.trailerInfo;
      const previous = before.Encrypt;
      before.Encrypt = undefined;
      try {
        parseTrailerDict();
      } finally {
        // No trailer was met: pdf-lib left the object as it was.
        if (this.context.trailerInfo === before) before.Encrypt = previous;
        else if (previous !== undefined && this.context.trailerInfo.Encrypt === undefined) {
          this.repairs.push('an /Encrypt of an older trailer, which the newest does not use, left out');
        }
      }
    };
  }

  /**
   * A cross-reference table or `startxref` line that cannot be read (garbage where the numbers
   * should be) is passed over, as viewers pass over it: objects are found by reading the file.
   */
  #skipWhenDamaged<T>(step: () => T): () => T | undefined {
    return () => {
      try {
        return step();
      } catch (error) {
        if (this.#budget.tripped) throw this.#budget.tripped;
        // pdf-lib's error classes are compiled to ES5 and lose their prototype: told by message.
        if (
          !(error instanceof Error) ||
          !/^(Failed to parse number|Expected next byte)/.test(error.message)
        ) {
          throw error;
        }
        return undefined;
      }
    };
  }

  // The two lexer steps every loop of the parser passes through, its recovery scans included.
  protected override skipWhitespaceAndComments(): void {
    this.#budget.step();
    super.skipWhitespaceAndComments();
  }

  protected override matchKeyword(keyword: number[]): boolean {
    this.#budget.step();
    return super.matchKeyword(keyword);
  }

  override parseObject(): PDFObject {
    this.#budget.countObjects(1);
    const object = super.parseObject();
    if (object instanceof PDFRawStream) {
      const type = object.dict.get(PDFName.Type);
      if (type === objectStream || type === xrefStream) this.#measure(object);
    }
    return object;
  }

  #measure(stream: PDFRawStream): void {
    const filter = stream.dict.get(PDFName.of('Filter'));
    const filters = filter instanceof PDFArray ? filter.asArray() : filter === undefined ? [] : [filter];
    if (filters.length === 0) {
      this.#budget.countDecoded(stream.contents.length);
      this.#budget.countObjects(countTokens(stream.contents));
      return;
    }
    if (filters.length > 1 || filters[0] !== flate) {
      this.#budget.trip(damaged('an object stream uses a compression this service does not read.'));
    }
    const limit = this.#budget.remainingDecodedBytes();
    let decoded: Buffer;
    try {
      decoded = inflateSync(stream.contents, { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        this.#budget.trip(damaged('an object stream decodes to more data than this service accepts.'));
      }
      // Corrupt data: pdf-lib's own decoder meets it next and the object is refused there.
      return;
    }
    this.#budget.countDecoded(decoded.length);
    this.#budget.countObjects(countTokens(decoded));
  }
}

/**
 * Parses PDF bytes into a pdf-lib context within the limits of `pdfLimits`. With
 * `skipInvalidObjects`, objects pdf-lib cannot parse are left out instead of failing the file.
 * What was read otherwise than pdf-lib would read it is added to `repairs`.
 */
export async function parsePdfContext(
  bytes: Uint8Array,
  limits: PdfLimits = pdfLimits,
  skipInvalidObjects = false,
  repairs: string[] = [],
): Promise<PDFContext> {
  const budget = new ParseBudget(bytes.length, limits);
  const parser = new BudgetedPdfParser(bytes, budget, skipInvalidObjects);
  let context: PDFContext;
  try {
    context = await parser.parseDocument();
  } catch (error) {
    // The parser may wrap the budget's error in its own; the budget's is the one that explains.
    throw budget.tripped ?? error;
  }
  // pdf-lib's recovery scan swallows errors, the budget's too: look whether it was tripped.
  if (budget.tripped) throw budget.tripped;
  repairs.push(...parser.repairs);
  return context;
}
