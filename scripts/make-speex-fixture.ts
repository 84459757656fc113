import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeSpeexOgg, speexFixture } from '../test/corpus/media.ts';

/**
 * Writes test/fixtures/files/speex-tone.ogg, the Speex file of the media corpus, for machines
 * whose ffmpeg has no libspeex encoder and no speexenc (the corpus encodes its own where it can).
 * Needs either tool here: ffmpeg built with libspeex, or Debian's `speex` package
 * (`apt-get install speex`). Run with the project's Node: `npx node scripts/make-speex-fixture.ts`.
 */
const scratch = await mkdtemp(join(tmpdir(), 'speex-fixture-'));
try {
  const bytes = await encodeSpeexOgg(join(scratch, 'tone'));
  await writeFile(speexFixture, bytes);
  console.log(`wrote ${speexFixture.pathname} (${bytes.length} bytes)`);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
