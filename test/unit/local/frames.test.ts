import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader, FrameType, frameHeader } from '../../../infra/local/frames.ts';

describe('answer frames between a worker and the gateway', () => {
  it('come out whole and in order, however the pipe splits their bytes', () => {
    const frame = fc.record({
      type: fc.constantFrom(FrameType.head, FrameType.data, FrameType.end, FrameType.fail),
      payload: fc.uint8Array({ maxLength: 300 }),
    });
    fc.assert(
      fc.property(
        fc.array(frame, { maxLength: 20 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1 }),
        (frames, cuts) => {
          const bytes = Buffer.concat(
            frames.flatMap(({ type, payload }) => [frameHeader(type, payload.length), Buffer.from(payload)]),
          );
          const reader = new FrameReader();
          const seen: Array<{ type: number; payload: Uint8Array }> = [];
          for (let at = 0, cut = 0; at < bytes.length; cut += 1) {
            const size = cuts[cut % cuts.length]!;
            reader.push(bytes.subarray(at, at + size), (type, payload) =>
              seen.push({ type, payload: new Uint8Array(payload) }),
            );
            at += size;
          }
          expect(seen).toEqual(
            frames.map(({ type, payload }) => ({ type, payload: new Uint8Array(payload) })),
          );
        },
      ),
    );
  });
});
