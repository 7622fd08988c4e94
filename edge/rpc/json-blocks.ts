import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { CompactTxStreamer } from "../../proto/index.ts";
import type { Deadline } from "../../proto/wire/deadline.ts";
import { type RangeRpc, rangeMessages } from "../blocks/block-range.ts";
import { type BlockRpc, blockMessage } from "../blocks/get-block.ts";
import type { EdgeServices } from "../services.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/**
 * The block RPCs for JSON clients through the router: the same planning, reads and checks as
 * the binary fast path (blocks/), their frames decoded as messages for the router to write as JSON.
 */
export function jsonBlockMethods(s: EdgeServices, network: string): Partial<Impl> {
  const range = (rpc: RangeRpc) => (req: Parameters<Impl["getBlockRange"]>[0], ctx: HandlerContext) =>
    rangeMessages(s, network, rpc, req, deadlineOf(ctx));
  const unary = (rpc: BlockRpc) => (req: Parameters<Impl["getBlock"]>[0], ctx: HandlerContext) =>
    blockMessage(s, network, rpc, req, deadlineOf(ctx));
  return {
    getBlockRange: range("GetBlockRange"),
    getBlockRangeNullifiers: range("GetBlockRangeNullifiers"),
    getBlock: unary("GetBlock"),
    getBlockNullifiers: unary("GetBlockNullifiers"),
  };
}

/** The router's own deadline (its context signal aborts with DeadlineExceeded) as the fast path's. */
function deadlineOf(ctx: HandlerContext): Deadline {
  return { signal: ctx.signal, remainingMs: () => ctx.timeoutMs(), dispose: () => {} };
}
