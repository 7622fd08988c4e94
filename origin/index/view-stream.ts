import { encodeFrame } from "../../proto/frame.ts";
import type { Link } from "../../proto/range/chain-link.ts";
import { frameOf, type RangeMeta, wireHashView, wirePrevHashView } from "../../proto/range/index.ts";
import type { ChainBlock, Projection } from "./chain-view.ts";
import type { SealedSpan } from "./sealed-reader.ts";
import type { IndexedBlock } from "./tail.ts";

/** The per-block pieces of a ChainView stream: what is yielded, and the continuity check. */

/** What a stream yields per block, from a sealed span or a tail block. */
export interface Emit<T> {
  sealed(span: SealedSpan, height: number): T;
  tail(block: IndexedBlock, projection: Projection): T;
  /** When set, an ascending sealed run `from..to` of one span is yielded as one value. */
  sealedRun?(span: SealedSpan, from: number, to: number): T;
  /** When set, an ascending whole range read by its ends alone is yielded as its stored bytes. */
  wholeRange?(bytes: Uint8Array): T;
}

export const asFrames: Emit<Uint8Array> = {
  sealed: frameOf,
  tail: (block, projection) => encodeFrame(block.messages[projection]),
};

/** Frames, an ascending sealed run's as one view of the span: its frames as stored, end to end. */
export const asFrameRuns: Emit<Uint8Array> = {
  ...asFrames,
  sealedRun: (span, from, to) => {
    const first = frameOf(span, from);
    const last = frameOf(span, to);
    return new Uint8Array(first.buffer, first.byteOffset, last.byteOffset + last.length - first.byteOffset);
  },
  wholeRange: (bytes) => bytes,
};

export const asBlocks: Emit<ChainBlock> = {
  sealed: (span, height) => ({
    height,
    wireHash: wireHashView(span.meta, height),
    wirePrevHash: wirePrevHashView(span.meta, height),
    frame: frameOf(span, height),
  }),
  tail: (block, projection) => ({
    height: block.height,
    wireHash: block.wireHash,
    wirePrevHash: block.wirePrevHash,
    frame: encodeFrame(block.messages[projection]),
  }),
};

/** The chain link of a sealed height, from its range's metadata. */
export const sealedLink = (meta: RangeMeta, height: number): Link => ({
  height,
  wireHash: wireHashView(meta, height),
  wirePrevHash: wirePrevHashView(meta, height),
});
