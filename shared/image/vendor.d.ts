/** Type declarations for the pure JS/WASM codecs the image suite uses that ship none. */

declare module 'heic-decode' {
  interface DecodedHeic {
    width: number;
    height: number;
    /** RGBA, 8 bits a channel, row by row. */
    data: Uint8ClampedArray;
  }
  interface HeicImage {
    width: number;
    height: number;
    decode(): Promise<DecodedHeic>;
  }
  interface DecodeHeic {
    (input: { buffer: Uint8Array }): Promise<DecodedHeic>;
    /** Every top-level image, read from the container without decoding pixels. */
    all(input: { buffer: Uint8Array }): Promise<HeicImage[] & { dispose(): void }>;
  }
  const decode: DecodeHeic;
  export default decode;
}

declare module 'imagetracerjs' {
  interface TraceOptions {
    numberofcolors?: number;
    colorsampling?: 0 | 1 | 2;
    colorquantcycles?: number;
    ltres?: number;
    qtres?: number;
    pathomit?: number;
    rightangleenhance?: boolean;
    strokewidth?: number;
    roundcoords?: number;
    viewbox?: boolean;
    desc?: boolean;
    scale?: number;
    blurradius?: number;
    blurdelta?: number;
    linefilter?: boolean;
    layering?: 0 | 1;
    mincolorratio?: number;
  }
  interface ImageTracer {
    imagedataToSVG(
      image: { width: number; height: number; data: Uint8ClampedArray },
      options?: TraceOptions,
    ): string;
  }
  const tracer: ImageTracer;
  export default tracer;
}
