import { fromBinary } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import { type BlockRange, type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import {
  filterCompactBlock,
  nullifiersOnly,
  type PoolSet,
  poolSetFromRequest,
  storedProjectionFor,
} from "../../proto/pools.ts";
import { blockMessage, servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { frameMessage } from "./stored-message.ts";
import { heightOf } from "./values.ts";

/** Checked bounds of a BlockRange: a missing end is a bad request; above the tip → OutOfRange. */
function rangeBounds(s: Serve, rpc: string, range: BlockRange): { from: number; to: number } {
  if (range.start === undefined || range.end === undefined) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: a range needs a start and an end`);
  }
  const from = heightOf(rpc, range.start.height);
  const to = heightOf(rpc, range.end.height);
  const tip = servedTip(s.chain, rpc).height;
  // Refused whole, never cut short (as Zaino): a short stream looks like success to a wallet.
  if (Math.max(from, to) > tip) {
    throw new LightedgeError(
      "above-tip",
      rpc,
      `${rpc}: height ${Math.max(from, to)} is above the tip ${tip}`,
    );
  }
  return { from, to };
}

/**
 * GetBlockRange / GetBlockRangeNullifiers. The default pool set (empty poolTypes) and the
 * nullifier projection stream the stored frames as they are (stored-message.ts); any other pool
 * set decodes the full projection and filters each block (one decode + encode per block).
 * Continuity across blocks and the sealed/tail seam is checked by the ChainView (chain-break →
 * Aborted).
 */
export async function* getBlockRange(
  s: Serve,
  rpc: "GetBlockRange" | "GetBlockRangeNullifiers",
  range: BlockRange,
  ctx: HandlerContext,
): AsyncGenerator<CompactBlock> {
  let pools: PoolSet;
  try {
    pools = poolSetFromRequest(range.poolTypes);
  } catch (err) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: ${(err as Error).message}`);
  }
  const { from, to } = rangeBounds(s, rpc, range);
  const stored = storedProjectionFor(pools);
  const direct = rpc === "GetBlockRangeNullifiers" ? (stored === "shielded" ? "nullifiers" : null) : stored;
  const projection = direct ?? "full";
  for await (const block of s.chain.blocks(projection, from, to, { signal: ctx.signal })) {
    if (direct !== null) {
      yield blockMessage(block.frame, ctx);
      continue;
    }
    const filtered = filterCompactBlock(fromBinary(CompactBlockSchema, frameMessage(block.frame)), pools);
    yield rpc === "GetBlockRangeNullifiers" ? nullifiersOnly(filtered) : filtered;
  }
}
