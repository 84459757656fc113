/**
 * Sample rates at which libvorbis takes a quality but no bitrate: the request schema refuses a
 * `bitrate` for ogg at these rates, and the encoder settings (audio-bitrate.ts) write a quality.
 */
export const vorbisQualityOnlyRates: ReadonlySet<number> = new Set([88200, 96000]);
