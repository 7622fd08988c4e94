import { fromBinary } from "@bufbuild/protobuf";
import { CompactBlockSchema } from "../../proto/index.ts";
import type { BlockNoteCommitments } from "../trees/index.ts";

/**
 * The note commitments a block appends, read from its stored "full" projection (every tx, every
 * pool): Sapling output cmu, Orchard action cmx and Ironwood action cmx in block order, which is
 * tree order (ZIP 225 appends a block's commitments in transaction order; ZIP 229's Ironwood bundle
 * likewise).
 */
export function commitmentsOfCompact(fullCompactBlock: Uint8Array): BlockNoteCommitments {
  const block = fromBinary(CompactBlockSchema, fullCompactBlock);
  const saplingCmus: Uint8Array[] = [];
  const orchardCmxs: Uint8Array[] = [];
  const ironwoodCmxs: Uint8Array[] = [];
  for (const tx of block.vtx) {
    for (const o of tx.outputs) saplingCmus.push(o.cmu);
    for (const a of tx.actions) orchardCmxs.push(a.cmx);
    for (const a of tx.ironwoodActions) ironwoodCmxs.push(a.cmx);
  }
  return { saplingCmus, orchardCmxs, ironwoodCmxs };
}
