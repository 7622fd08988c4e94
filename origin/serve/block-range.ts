import { fromBinary } from "@bufbuild/protobuf";
import { ConnectError, type HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import { type BlockRange, type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import { type RangeRpc, rangeSourceFor } from "../../proto/pools.ts";
import { checkBlockRange } from "../../proto/wire/limits.ts";
import type { Projection } from "../index/chain-view.ts";
import { blockMessage, servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { frameMessage } from "./stored-message.ts";

export type { RangeRpc };

/**
 * What a checked BlockRange streams: heights `from..to` of `projection`, either as stored
 * (`project` undefined) or each block decoded and passed through `project` (proto/pools.ts
 * rangeSourceFor, the choice the edge makes too).
 */
export interface RangePlan {
  from: number;
  to: number;
  projection: Projection;
  project?: (block: CompactBlock) => CompactBlock;
  /** Thrown once `from..to` is streamed: the range ran past the tip. */
  after?: LightedgeError;
}

/**
 * Validates a BlockRange request (proto/wire/limits.ts) and picks its source. Past the tip, as
 * lightwalletd (common/common.go GetBlockRange walks start→end and fails at the first block it
 * lacks with OutOfRange): a range that starts above the tip is refused before any block; an
 * ascending range that runs past the tip streams the blocks up to the tip, then ends with
 * OutOfRange (`after`). Shared by the connect-node handler and the fast path.
 */
export function planBlockRange(s: Pick<Serve, "chain">, rpc: RangeRpc, range: BlockRange): RangePlan {
  const { start: from, end, pools } = checkBlockRange(rpc, range);
  const source = rangeSourceFor(rpc, pools);
  const tip = servedTip(s.chain, rpc).height;
  const aboveTip = (height: number) =>
    new LightedgeError("above-tip", rpc, `${rpc}: height ${height} is above the tip ${tip}`);
  if (from > tip) throw aboveTip(from);
  if (end > tip) return { from, to: tip, ...source, after: aboveTip(tip + 1) };
  return { from, to: end, ...source };
}

/**
 * GetBlockRange / GetBlockRangeNullifiers through connect-node (JSON codecs, compressed
 * requests; binary calls normally take fast/). Continuity across blocks and the sealed/tail seam
 * is checked by the ChainView (chain-break → Aborted).
 */
export async function* getBlockRange(
  s: Serve,
  rpc: RangeRpc,
  range: BlockRange,
  ctx: HandlerContext,
): AsyncGenerator<CompactBlock> {
  const plan = planBlockRange(s, rpc, range);
  const { project } = plan;
  for await (const block of s.chain.blocks(plan.projection, plan.from, plan.to, { signal: ctx.signal })) {
    yield project === undefined
      ? blockMessage(block.frame, ctx)
      : project(fromBinary(CompactBlockSchema, frameMessage(block.frame)));
  }
  // The view ends a stream quietly when its signal fires; a deadline must not look like success.
  if (ctx.signal.reason instanceof ConnectError) throw ctx.signal.reason;
  if (plan.after) throw plan.after;
}
