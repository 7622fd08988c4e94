import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { encodeFrame } from "../../../proto/frame.ts";
import { BlockIDSchema, BlockRangeSchema, CompactBlockSchema } from "../../../proto/index.ts";
import { decodeRequestMessage } from "../../../proto/wire/request.ts";
import type { ChainView } from "../../index/chain-view.ts";
import type { BufferPool } from "../../store/index.ts";
import { planBlockRange } from "../block-range.ts";
import { blockFrame } from "../blocks.ts";
import { frameMessage } from "../stored-message.ts";
import type { FastBlockRpc, FastRangeRpc } from "./detect.ts";

/**
 * The frames a range call answers with, validated exactly as the connect-node handler validates
 * (block-range.ts `planBlockRange`; throws before the first frame). Stored pool sets stream the
 * ChainView's frames untouched; other pool sets are filtered and re-encoded per block.
 */
export function rangeFrames(
  chain: ChainView,
  rpc: FastRangeRpc,
  request: Uint8Array,
  signal: AbortSignal,
  pool?: BufferPool,
): AsyncIterable<Uint8Array> {
  const plan = planBlockRange({ chain }, rpc, decodeRequestMessage(BlockRangeSchema, request, rpc));
  const { project, after } = plan;
  // Stored frames are only written: a sealed range's may come as one run (BlockFramesOptions.runs),
  // read into a buffer of `pool` that the frame output gives back once written (output.ts).
  const options = { signal, runs: true, into: pool && ((length: number) => pool.take(length)) };
  if (project === undefined && after === undefined)
    return chain.blockFrames(plan.projection, plan.from, plan.to, options);
  return (async function* () {
    if (project === undefined) yield* chain.blockFrames(plan.projection, plan.from, plan.to, options);
    else {
      for await (const block of chain.blocks(plan.projection, plan.from, plan.to, { signal })) {
        const filtered = project(fromBinary(CompactBlockSchema, frameMessage(block.frame)));
        yield encodeFrame(toBinary(CompactBlockSchema, filtered));
      }
    }
    // A range past the tip: the blocks up to it, then OutOfRange (block-range.ts rangeBounds).
    if (after !== undefined && !signal.aborted) throw after;
  })();
}

/** The frame of GetBlock or GetBlockNullifiers (blocks.ts `blockFrame`). */
export function singleFrame(
  chain: ChainView,
  rpc: FastBlockRpc,
  request: Uint8Array,
  signal: AbortSignal,
): Promise<Uint8Array> {
  return blockFrame({ chain }, rpc, decodeRequestMessage(BlockIDSchema, request, rpc), signal);
}
