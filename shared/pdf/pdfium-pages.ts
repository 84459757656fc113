import { ApiError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { renderPageLimitSeconds } from '#shared/pdf/limits.ts';
import { openPdf } from '#shared/pdf/open.ts';
import { dropJpxImages } from '#shared/pdf/render-guard.ts';
import {
  type Bitmap,
  giveBack,
  type RenderThread,
  RenderTimeout,
  RenderTrap,
  takeThread,
} from '#shared/pdf/render-thread.ts';

export type { Bitmap } from '#shared/pdf/render-thread.ts';

/** Time kept back before the request's deadline, to encode and send what was rendered. */
const deadlineMarginMs = 2_000;

const unrenderable = (page: number) =>
  new ApiError(
    'invalid_source_file',
    `The PDF's page ${page} could not be rendered: the renderer failed on its content (an image or font it cannot decode).`,
  );

export interface RenderLimits {
  /** Time one page may take; default `renderPageLimitSeconds`. */
  pageLimitMs?: number;
  /** When the request must have answered (epoch ms); pages render only in the time left before it. */
  deadline?: number | undefined;
}

/**
 * One document rendered page by page with pdfium, on a thread of its own (`RenderThread`), each
 * page within its limit: the page's own, or the time the request has left, whichever is less.
 * A page that passes it answers a 4xx naming the limit, at the limit, however busy the machine.
 * A WebAssembly trap or abort (pdfium aborts on some images, JPEG 2000 ones above all) ends the
 * thread, and the page is rendered again on a fresh one without its JPEG 2000 images, as viewers
 * render a page without an image they cannot decode; when that fails too, the answer is a 4xx
 * naming the page. Nothing of one document's failure reaches another request.
 */
export class PdfiumPages {
  #bytes: Uint8Array;
  #thread: RenderThread | undefined;
  #withoutJpx = false;
  readonly #pageLimitMs: number;
  readonly #deadline: number | undefined;

  constructor(bytes: Uint8Array, limits: RenderLimits = {}) {
    this.#bytes = bytes;
    this.#pageLimitMs = limits.pageLimitMs ?? renderPageLimitSeconds * 1000;
    this.#deadline = limits.deadline;
  }

  async render(page: number, scale: number): Promise<Bitmap> {
    try {
      return await this.#renderOnce(page, scale);
    } catch (error) {
      if (!(error instanceof RenderTrap)) throw error;
      this.#lost(error, page);
    }
    if (this.#withoutJpx || !(await this.#dropJpx())) throw unrenderable(page);
    try {
      return await this.#renderOnce(page, scale);
    } catch (error) {
      if (!(error instanceof RenderTrap)) throw error;
      this.#lost(error, page);
      throw unrenderable(page);
    }
  }

  destroy(): void {
    if (this.#thread) giveBack(this.#thread);
    this.#thread = undefined;
  }

  async #renderOnce(page: number, scale: number): Promise<Bitmap> {
    const { limitMs, describe } = this.#limit();
    try {
      const thread = await this.#open(limitMs);
      return await thread.render(page, scale, limitMs);
    } catch (error) {
      if (!(error instanceof RenderTimeout)) throw error;
      this.#thread = undefined;
      log('error', 'pdfium passed its time limit on a page; its thread was ended', { page, limitMs });
      throw new ApiError(
        'invalid_source_file',
        `The PDF's page ${page} could not be rendered within ${describe}. Leave it out with \`pages\`.`,
      );
    }
  }

  /** The page's limit, or the request's time left when that is less, and how to name it. */
  #limit(): { limitMs: number; describe: string } {
    const own = {
      limitMs: this.#pageLimitMs,
      describe: `${this.#pageLimitMs / 1000} s, the limit for one page`,
    };
    if (this.#deadline === undefined) return own;
    const left = Math.max(1, this.#deadline - deadlineMarginMs - Date.now());
    if (left >= own.limitMs) return own;
    return { limitMs: left, describe: `the ${Math.ceil(left / 1000)} s left of the request's time limit` };
  }

  async #open(limitMs: number): Promise<RenderThread> {
    if (this.#thread) return this.#thread;
    const thread = takeThread();
    this.#thread = thread;
    try {
      await thread.open(this.#bytes, limitMs);
    } catch (error) {
      if (error instanceof RenderTrap || error instanceof RenderTimeout) throw error;
      this.destroy();
      mapNativeError('pdfium', error);
    }
    return thread;
  }

  #lost(error: RenderTrap, page: number): void {
    this.#thread?.end();
    this.#thread = undefined;
    log('error', 'pdfium failed on a page; its thread was ended', { page, reason: error.message });
  }

  /** Rewrites the document without its JPEG 2000 images; false when it has none. */
  async #dropJpx(): Promise<boolean> {
    this.#withoutJpx = true;
    const { doc } = await openPdf(this.#bytes, { maxPages: undefined });
    if (dropJpxImages(doc.context, true).length === 0) return false;
    this.#bytes = await doc.save({
      useObjectStreams: false,
      addDefaultPage: false,
      updateFieldAppearances: false,
    });
    return true;
  }
}
