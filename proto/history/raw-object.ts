import { LightedgeError } from "../errors.ts";
import { decodeFrames, encodeFrames, FLAG_DATA, frameParts } from "../frame.ts";

/**
 * The raw-block object (proto/range-format.md §Node-free history, Raw-block object): one data frame
 * per block of the range, ascending, each holding the node's exact `getblock <hash> 0` bytes.
 * Nothing else, so a block or any run of blocks is one ranged read once the transaction table
 * gives its frame's span.
 */

const WHERE = "history-raw";

/** The raw-block object of a range from its blocks' bytes, in height order. */
export function encodeRawBlocks(blocks: readonly Uint8Array[]): Uint8Array {
  return encodeFrames(blocks);
}

/** The same object as parts (frame headers and the blocks' own bytes), for a writer that takes parts. */
export function rawBlocksParts(blocks: readonly Uint8Array[]): Uint8Array[] {
  return frameParts(blocks);
}

/**
 * The blocks of whole frames (a raw-block object, or a ranged read of some of its frames), in
 * order, as views. Corrupt unless the bytes are exactly frames with the data flag: a torn frame or
 * trailing bytes mean a truncated or replaced object.
 */
export function* rawBlocks(frames: Uint8Array): Generator<Uint8Array> {
  const iterator = decodeFrames(frames);
  for (;;) {
    let next: IteratorResult<{ flag: number; message: Uint8Array }>;
    try {
      next = iterator.next();
    } catch (cause) {
      throw new LightedgeError("corrupt", WHERE, `raw-block object: ${(cause as Error).message}`, { cause });
    }
    if (next.done) return;
    if (next.value.flag !== FLAG_DATA)
      throw new LightedgeError("corrupt", WHERE, `raw-block object: frame flag ${next.value.flag}`);
    yield next.value.message;
  }
}

/** The block of one frame (a ranged read of a frame span the transaction table gives). */
export function blockOfFrame(frame: Uint8Array): Uint8Array {
  const blocks = [...rawBlocks(frame)];
  if (blocks.length !== 1)
    throw new LightedgeError(
      "corrupt",
      WHERE,
      `raw-block object: ${blocks.length} frames where one was read`,
    );
  return blocks[0]!;
}
