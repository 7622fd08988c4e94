import { fromBinary } from "@bufbuild/protobuf";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import type { SealedReader } from "../index/index.ts";
import type { BlockNoteCommitments } from "../trees/index.ts";

/** A block as the backfill needs it: identity, time and its note commitments in tree order. */
export interface BackfillBlock extends BlockNoteCommitments {
  height: number;
  /** 32 bytes, wire order. */
  wireHash: Uint8Array;
  time: number;
  /** Ironwood tree size after the block (chainMetadata), when known. */
  ironwoodSize?: number;
}

/**
 * Blocks `from..to` read back from the sealed ranges' "full" projection (one ranged read per range).
 * Hashes and commitments are copied out: protobuf-es decodes bytes fields as views of the input,
 * and a leaf held until its 2¹⁶-leaf subtree completes (pool-lane.ts) would pin its whole range's
 * read (megabytes) — a dev chain's rarely used pool pinned every range read: 5.9 GB at 200,000 blocks.
 */
export async function* storedBlocks(
  sealed: SealedReader,
  from: number,
  to: number,
): AsyncGenerator<BackfillBlock> {
  for await (const b of sealed.blocks("full", from, to)) {
    const block = fromBinary(CompactBlockSchema, b.frame.subarray(FRAME_HEADER_BYTES));
    yield {
      height: b.height,
      wireHash: b.wireHash.slice(),
      time: block.time,
      ironwoodSize: block.chainMetadata?.ironwoodCommitmentTreeSize ?? 0,
      saplingCmus: block.vtx.flatMap((tx) => tx.outputs.map((o) => o.cmu.slice())),
      orchardCmxs: block.vtx.flatMap((tx) => tx.actions.map((a) => a.cmx.slice())),
      ironwoodCmxs: block.vtx.flatMap((tx) => tx.ironwoodActions.map((a) => a.cmx.slice())),
    };
  }
}
