import { LightedgeError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";

/** One enveloped message, with the header-included bytes so it can be re-sent unchanged. */
export interface ReadFrame {
  flag: number;
  /** Flag + length + message, exactly as received. */
  bytes: Uint8Array;
  /** The message alone (a view into `bytes`). */
  message: Uint8Array;
}

/**
 * Frames of a stream as they complete, however the chunks fall. Used for the origin's tail and the
 * JSON fallback, never for stored bytes on the fast path. `maxFrameBytes` bounds buffering.
 */
export async function* readFrames(
  body: ReadableStream<Uint8Array>,
  maxFrameBytes: number,
): AsyncGenerator<ReadFrame> {
  let buf: Uint8Array = new Uint8Array(0);
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf = buf.length === 0 ? chunk : concat(buf, chunk);
    let at = 0;
    while (buf.length - at >= FRAME_HEADER_BYTES) {
      const length = new DataView(buf.buffer, buf.byteOffset + at + 1, 4).getUint32(0, false);
      if (length > maxFrameBytes) {
        throw new LightedgeError(
          "malformed",
          "wire.frames",
          `frame of ${length} bytes exceeds ${maxFrameBytes}`,
        );
      }
      const end = at + FRAME_HEADER_BYTES + length;
      if (end > buf.length) break;
      const bytes = buf.slice(at, end);
      yield { flag: bytes[0]!, bytes, message: bytes.subarray(FRAME_HEADER_BYTES) };
      at = end;
    }
    buf = buf.subarray(at);
  }
  if (buf.length > 0) throw new LightedgeError("malformed", "wire.frames", `stream ended inside a frame`);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
