/**
 * Debian's own ffmpeg and ffprobe (`npm run system-tools` installs them): the independent tools
 * that make the media fixtures and read the service's answers. The service under test runs the
 * layer's static build instead (vitest.config.ts points FFMPEG_PATH and FFPROBE_PATH at it), so a
 * file made by one build is read by another, as the world's files are.
 */
export const referenceFfmpeg = '/usr/bin/ffmpeg';
export const referenceFfprobe = '/usr/bin/ffprobe';

/**
 * Debian's own qpdf: it makes the encrypted fixtures and reads the service's answers back
 * (`--show-encryption`, `--requires-password`). The service runs the qpdf layer's static build
 * (QPDF_PATH in vitest.config.ts), compiled from the same source package.
 */
export const referenceQpdf = '/usr/bin/qpdf';
