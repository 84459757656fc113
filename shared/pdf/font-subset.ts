import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * Subsets a face of a font file (a collection too) with HarfBuzz's hb-subset, compiled to
 * WebAssembly by harfbuzzjs: the result is a small OpenType font of the characters asked for, with
 * its glyphs renumbered. fontkit's own subsetter writes CID-keyed CFF fonts (Noto Sans CJK) that
 * readers refuse; hb-subset is the subsetter browsers' font tooling uses.
 */

interface HarfBuzzSubset {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(pointer: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, codePoint: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_or_fail(face: number, input: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
}

/** The module, compiled once per container (it is read only; every call makes and frees its own objects). */
let compiled: Promise<WebAssembly.Module> | undefined;

async function harfbuzz(): Promise<HarfBuzzSubset> {
  compiled ??= readFile(fileURLToPath(import.meta.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'))).then(
    (bytes) => WebAssembly.compile(bytes),
  );
  const instance = await WebAssembly.instantiate(await compiled, {});
  return instance.exports as unknown as HarfBuzzSubset;
}

/** HB_MEMORY_MODE_WRITABLE: HarfBuzz reads the bytes in place. */
const writable = 2;
/** HB_SUBSET_FLAGS_RETAIN_GIDS. */
const retainGlyphIds = 2;

/** The face `index` of `font` cut down to the glyphs of `characters`, as an OpenType font. */
export async function subsetFace(
  font: Uint8Array,
  index: number,
  characters: Iterable<string>,
): Promise<Uint8Array> {
  const hb = await harfbuzz();
  const data = hb.malloc(font.byteLength);
  new Uint8Array(hb.memory.buffer, data, font.byteLength).set(font);
  const blob = hb.hb_blob_create(data, font.byteLength, writable, 0, 0);
  const face = hb.hb_face_create(blob, index);
  const input = hb.hb_subset_input_create_or_fail();
  try {
    if (input === 0) throw new Error('hb-subset could not make its input');
    const unicodes = hb.hb_subset_input_unicode_set(input);
    for (const character of characters) hb.hb_set_add(unicodes, character.codePointAt(0)!);
    // Glyphs keep their numbers (and so, in a CID-keyed font, their CIDs).
    hb.hb_subset_input_set_flags(input, retainGlyphIds);
    const subset = hb.hb_subset_or_fail(face, input);
    if (subset === 0) throw new Error('hb-subset failed on the font');
    const result = hb.hb_face_reference_blob(subset);
    const offset = hb.hb_blob_get_data(result, 0);
    const length = hb.hb_blob_get_length(result);
    const bytes = new Uint8Array(hb.memory.buffer, offset, length).slice();
    hb.hb_blob_destroy(result);
    hb.hb_face_destroy(subset);
    if (length === 0) throw new Error('hb-subset wrote an empty font');
    return bytes;
  } finally {
    if (input !== 0) hb.hb_subset_input_destroy(input);
    hb.hb_face_destroy(face);
    hb.hb_blob_destroy(blob);
    hb.free(data);
  }
}
