import { equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame } from "../../proto/frame.ts";
import type { ChainBlock, Projection } from "./chain-view.ts";
import { type SealedSpan, sealedFrame, sealedHash, sealedPrevHash } from "./sealed-span.ts";
import type { IndexedBlock } from "./tail.ts";

/** The per-block pieces of a ChainView stream: what is yielded, and the continuity check. */

/** What a stream yields per block, from a sealed span or a tail block. */
export interface Emit<T> {
  sealed(span: SealedSpan, height: number): T;
  tail(block: IndexedBlock, projection: Projection): T;
}

export const asFrames: Emit<Uint8Array> = {
  sealed: sealedFrame,
  tail: (block, projection) => encodeFrame(block.messages[projection]),
};

export const asBlocks: Emit<ChainBlock> = {
  sealed: (span, height) => ({
    height,
    wireHash: sealedHash(span.meta, height),
    wirePrevHash: sealedPrevHash(span.meta, height),
    frame: sealedFrame(span, height),
  }),
  tail: (block, projection) => ({
    height: block.height,
    wireHash: block.wireHash,
    wirePrevHash: block.wirePrevHash,
    frame: encodeFrame(block.messages[projection]),
  }),
};

/** Identity of the last block a stream emitted: all a continuity check needs. */
export type Link = { height: number; wireHash: Uint8Array; wirePrevHash: Uint8Array };

/** chain-break unless `next` (the block after `previous` in stream order) chains to it. */
export const link = (previous: Link | undefined, next: Link, ascending: boolean): void => {
  if (previous === undefined) return;
  const chained = ascending
    ? equalBytes(next.wirePrevHash, previous.wireHash)
    : equalBytes(previous.wirePrevHash, next.wireHash);
  if (!chained) {
    throw new LightedgeError(
      "chain-break",
      "chain-view",
      `blocks ${previous.height} and ${next.height} do not chain (reorg mid-stream)`,
    );
  }
};

export const sealedLink = (span: SealedSpan, height: number): Link => ({
  height,
  wireHash: sealedHash(span.meta, height),
  wirePrevHash: sealedPrevHash(span.meta, height),
});
