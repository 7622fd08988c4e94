import { fromBinary } from "@bufbuild/protobuf";
import { ConnectError, type HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import { type BlockRange, type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import {
  filterCompactBlock,
  nullifiersOnly,
  type PoolSet,
  poolSetFromRequest,
  storedProjectionFor,
} from "../../proto/pools.ts";
import type { Projection } from "../index/chain-view.ts";
import { blockMessage, servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { frameMessage } from "./stored-message.ts";
import { heightOf } from "./values.ts";

export type RangeRpc = "GetBlockRange" | "GetBlockRangeNullifiers";

/**
 * What a checked BlockRange streams: heights `from..to` of `projection`, either as stored
 * (`project` undefined) or each block decoded and passed through `project` (a pool set nobody
 * stores: one decode + encode per block).
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
 * Checked bounds of a BlockRange: a missing end is a bad request. Past the tip, as lightwalletd
 * (common/common.go GetBlockRange walks start→end and fails at the first block it lacks with
 * OutOfRange): a range that starts above the tip is refused before any block; an ascending range
 * that runs past the tip streams the blocks up to the tip, then ends with OutOfRange (`after`).
 */
function rangeBounds(
  s: Pick<Serve, "chain">,
  rpc: string,
  range: BlockRange,
): { from: number; to: number; after?: LightedgeError } {
  if (range.start === undefined || range.end === undefined) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: a range needs a start and an end`);
  }
  const from = heightOf(rpc, range.start.height);
  const to = heightOf(rpc, range.end.height);
  const tip = servedTip(s.chain, rpc).height;
  const aboveTip = (height: number) =>
    new LightedgeError("above-tip", rpc, `${rpc}: height ${height} is above the tip ${tip}`);
  if (from > tip) throw aboveTip(from);
  if (to > tip) return { from, to: tip, after: aboveTip(tip + 1) };
  return { from, to };
}

/**
 * Validates a BlockRange request and picks its source. The default pool set (empty poolTypes)
 * and the nullifier projection are served as stored; any other pool set decodes the full
 * projection and filters each block. Shared by the connect-node handler and the fast path.
 */
export function planBlockRange(s: Pick<Serve, "chain">, rpc: RangeRpc, range: BlockRange): RangePlan {
  let pools: PoolSet;
  try {
    pools = poolSetFromRequest(range.poolTypes);
  } catch (err) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: ${(err as Error).message}`);
  }
  const { from, to, after } = rangeBounds(s, rpc, range);
  const stored = storedProjectionFor(pools);
  const direct = rpc === "GetBlockRangeNullifiers" ? (stored === "shielded" ? "nullifiers" : null) : stored;
  if (direct !== null) return { from, to, projection: direct, after };
  const project =
    rpc === "GetBlockRangeNullifiers"
      ? (b: CompactBlock) => nullifiersOnly(filterCompactBlock(b, pools))
      : (b: CompactBlock) => filterCompactBlock(b, pools);
  return { from, to, projection: "full", project, after };
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
