/**
 * What a worker process sends back over its answer pipe, in order: one `head` (status and
 * headers), any number of `data` frames (the body, as the handler writes it), then `end`, or
 * `fail` at any point; and, at any time, `log` frames with the lines the function logged, which the
 * gateway writes with its own. Each frame is a type byte, a 4-byte big-endian length and the
 * payload, so a streamed file passes through in the handler's own chunks, never collected whole.
 */
export const FrameType = { head: 1, data: 2, end: 3, fail: 4, log: 5 } as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

const HEADER_BYTES = 5;

export function frameHeader(type: FrameType, length: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header[0] = type;
  header.writeUInt32BE(length, 1);
  return header;
}

/** Splits the pipe's bytes into frames, whatever chunks they arrive in. */
export class FrameReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** Feeds a chunk of the pipe and calls `onFrame` for every frame it completes. */
  push(chunk: Buffer, onFrame: (type: FrameType, payload: Buffer) => void): void {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    while (this.#pendingBytes >= HEADER_BYTES) {
      const head = this.#peek(HEADER_BYTES);
      const length = head.readUInt32BE(1);
      if (this.#pendingBytes < HEADER_BYTES + length) return;
      const frame = this.#take(HEADER_BYTES + length);
      onFrame(frame[0] as FrameType, frame.subarray(HEADER_BYTES));
    }
  }

  #peek(bytes: number): Buffer {
    const first = this.#pending[0]!;
    if (first.length >= bytes) return first;
    const joined = Buffer.concat(this.#pending);
    this.#pending = [joined];
    return joined;
  }

  #take(bytes: number): Buffer {
    const joined = this.#peek(bytes);
    const rest = joined.subarray(bytes);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes -= bytes;
    return joined.subarray(0, bytes);
  }
}
