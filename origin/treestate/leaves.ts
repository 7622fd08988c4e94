import { fromBinary } from "@bufbuild/protobuf";
import { CompactBlockSchema } from "../../proto/index.ts";
import type { BlockNoteCommitments } from "../trees/index.ts";

/**
 * The note commitments a block appends, read from its stored "full" projection (every tx, every
 * pool): Sapling output cmu and Orchard action cmx in block order, which is tree order (ZIP 225
 * appends a block's commitments in transaction order). Ironwood is node-sourced (README.md).
 */
export function commitmentsOfCompact(fullCompactBlock: Uint8Array): BlockNoteCommitments {
  const block = fromBinary(CompactBlockSchema, fullCompactBlock);
  const saplingCmus: Uint8Array[] = [];
  const orchardCmxs: Uint8Array[] = [];
  for (const tx of block.vtx) {
    for (const o of tx.outputs) saplingCmus.push(o.cmu);
    for (const a of tx.actions) orchardCmxs.push(a.cmx);
  }
  return { saplingCmus, orchardCmxs };
}
