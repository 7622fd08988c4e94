import { concatBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { FRAME_HEADER_BYTES } from "../frame.ts";

/** One enveloped message, with the header-included bytes so it can be re-sent unchanged. */
export interface ReadFrame {
  flag: number;
  /** Flag + length + message, exactly as received. */
  bytes: Uint8Array;
  /** The message alone (a view into `bytes`). */
  message: Uint8Array;
}

/**
 * Frames of a byte stream as they complete, however the chunks fall (a fetch body, a Node
 * request). For streams from an upstream (the origin's tail at the edge), never for stored bytes
 * on a fast path. `maxFrameBytes` bounds buffering.
 */
export async function* readFrames(
  body: AsyncIterable<Uint8Array>,
  maxFrameBytes: number,
): AsyncGenerator<ReadFrame> {
  let buf: Uint8Array = new Uint8Array(0);
  for await (const chunk of body) {
    buf = buf.length === 0 ? chunk : concatBytes([buf, chunk]);
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
