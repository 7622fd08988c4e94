/**
 * A frame is one message as it travels in a gRPC-web or Connect stream: a flag byte, a 4-byte
 * big-endian length, then the protobuf bytes. Sealed ranges store block messages already framed,
 * so any contiguous run of frames is a ready response body.
 */
export const FRAME_HEADER_BYTES = 5;

/** Flag byte of a data frame (uncompressed message). */
export const FLAG_DATA = 0x00;
/** A request frame whose message is compressed with the call's message encoding. */
export const FLAG_COMPRESSED = 0x01;
/** gRPC-web: the frame carries trailers (HTTP/1-style header lines). */
export const FLAG_GRPC_WEB_TRAILER = 0x80;
/** Connect streaming: the frame carries the end-of-stream JSON. */
export const FLAG_CONNECT_END_STREAM = 0x02;

/** Frames a message: flag byte + big-endian length + bytes. */
export function encodeFrame(message: Uint8Array, flag: number = FLAG_DATA): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + message.length);
  out[0] = flag;
  new DataView(out.buffer).setUint32(1, message.length, false);
  out.set(message, FRAME_HEADER_BYTES);
  return out;
}

/** Data frames of several messages, one after another in one buffer (a stream body, a stored object). */
export function encodeFrames(messages: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const message of messages) total += FRAME_HEADER_BYTES + message.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const message of messages) {
    out[at] = FLAG_DATA;
    view.setUint32(at + 1, message.length, false);
    out.set(message, at + FRAME_HEADER_BYTES);
    at += FRAME_HEADER_BYTES + message.length;
  }
  return out;
}

/**
 * The same frames as parts — each message's 5-byte header, then the message itself, not copied —
 * for a writer that can send parts one after another (origin/store `Body`): a range's raw-block
 * object is tens to hundreds of MB, and one concatenated copy of it doubled the origin's memory
 * for it while it was uploaded.
 */
export function frameParts(messages: readonly Uint8Array[]): Uint8Array[] {
  return messages.flatMap((message) => [frameHeader(message.length), message]);
}

/** The 5-byte header of a data frame whose message has `length` bytes. */
export function frameHeader(length: number): Uint8Array {
  const header = new Uint8Array(FRAME_HEADER_BYTES);
  header[0] = FLAG_DATA;
  new DataView(header.buffer).setUint32(1, length, false);
  return header;
}

/** Splits a buffer of whole frames into [flag, message] pairs; throws on a torn frame. */
export function* decodeFrames(bytes: Uint8Array): Generator<{ flag: number; message: Uint8Array }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at < bytes.length) {
    if (at + FRAME_HEADER_BYTES > bytes.length) throw new RangeError(`torn frame header at byte ${at}`);
    const length = view.getUint32(at + 1, false);
    const end = at + FRAME_HEADER_BYTES + length;
    if (end > bytes.length) throw new RangeError(`torn frame at byte ${at}: needs ${length} bytes`);
    yield { flag: bytes[at]!, message: bytes.subarray(at + FRAME_HEADER_BYTES, end) };
    at = end;
  }
}
