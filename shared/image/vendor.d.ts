/** Type declarations for the pure JS/WASM codecs the image suite uses that ship none. */

declare module 'libheif-js/libheif-wasm/libheif-bundle.js' {
  import type { MainModule } from 'libheif-js/libheif-wasm/libheif.js';

  /** Emscripten's module options: `print` and `printErr` take what the C code writes to stdout and stderr. */
  interface ModuleOptions {
    print?: (text: string) => void;
    printErr?: (text: string) => void;
  }
  /** libheif with its WebAssembly inlined, instantiated synchronously. */
  export default function instantiate(options?: ModuleOptions): MainModule;
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

declare module 'node-webpmux' {
  /** A frame as the muxer reads it from an animation, or makes it from a still WebP. */
  interface Frame {
    x?: number;
    y?: number;
    width?: number;
    height?: number;
    /** Milliseconds. */
    delay?: number;
    /** Alpha-blend onto the canvas (false: overwrite its rectangle). */
    blend?: boolean;
    /** Clear the rectangle to the background after the frame is shown. */
    dispose?: boolean;
  }
  interface SaveOptions {
    frames?: Frame[];
    loops?: number;
  }
  class Image {
    get width(): number;
    get height(): number;
    get hasAnim(): boolean;
    get frames(): Frame[] | undefined;
    get exif(): Buffer | undefined;
    set exif(raw: Buffer | undefined);
    load(bytes: Buffer): Promise<void>;
    save(path: null, options?: SaveOptions): Promise<Buffer>;
    static generateFrame(frame: Frame & { buffer: Buffer }): Promise<Frame>;
  }
  const WebP: { Image: typeof Image };
  export default WebP;
}

declare module 'color-name' {
  /** The CSS named colours (lower case) and their RGB values; what the `color` package reads. */
  const names: Record<string, [number, number, number]>;
  export default names;
}
